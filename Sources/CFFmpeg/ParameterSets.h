// The pictures a stream's own parameter sets let its decoder hold, read
// from the container's extradata (avcC, hvcC, or Annex B start codes):
// FFmpeg says them only once it has decoded a frame.
#ifndef CAV_PARAMETER_SETS_H
#define CAV_PARAMETER_SETS_H

#include <stddef.h>
#include <stdint.h>

/// H.264 (`hevc` 0) or HEVC (`hevc` 1): the pictures its first sequence
/// parameter set lets the decoder hold besides the one it decodes: HEVC's
/// sps_max_dec_pic_buffering (its highest sub-layer's), H.264's
/// max_num_ref_frames. 0 when the extradata has no sequence parameter set
/// that can be read.
int cav_stream_pictures(int hevc, const uint8_t *extradata, size_t size);

#endif
