// A sequence parameter set read as far as the pictures it lets a decoder
// hold (H.264 7.3.2.1.1, HEVC 7.3.2.2): every read is bounded by the
// bytes there are, and a set that runs out says 0 (unknown).
#include "ParameterSets.h"

#include <string.h>

typedef struct {
    uint8_t bytes[4096];
    size_t size, bit;  // `bit`: the next bit to read
    int failed;        // read past the end
} reader;

// The NAL unit's payload without its emulation prevention bytes (00 00 03).
static void load(reader *r, const uint8_t *nal, size_t size) {
    memset(r, 0, sizeof *r);
    int zeros = 0;
    for (size_t i = 0; i < size && r->size < sizeof r->bytes; i++) {
        if (zeros >= 2 && nal[i] == 3) { zeros = 0; continue; }
        zeros = nal[i] == 0 ? zeros + 1 : 0;
        r->bytes[r->size++] = nal[i];
    }
}

static unsigned bits(reader *r, int count) {
    unsigned value = 0;
    for (int i = 0; i < count; i++) {
        if (r->bit >= r->size * 8) { r->failed = 1; return 0; }
        value = value << 1 | ((r->bytes[r->bit / 8] >> (7 - r->bit % 8)) & 1);
        r->bit++;
    }
    return value;
}

static unsigned ue(reader *r) {
    int zeros = 0;
    while (!r->failed && bits(r, 1) == 0) {
        if (++zeros > 31) { r->failed = 1; return 0; }
    }
    return zeros ? (1u << zeros) - 1 + bits(r, zeros) : 0;
}

static int se(reader *r) {
    unsigned value = ue(r);
    return value & 1 ? (int) ((value + 1) / 2) : -(int) (value / 2);
}

static int h264_pictures(reader *r) {
    bits(r, 8);  // the NAL header
    unsigned profile = bits(r, 8);
    bits(r, 16);  // constraint flags, level
    ue(r);        // seq_parameter_set_id
    static const unsigned high[] = {100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135};
    for (size_t i = 0; i < sizeof high / sizeof high[0]; i++) {
        if (profile != high[i]) continue;
        unsigned chroma = ue(r);
        if (chroma == 3) bits(r, 1);
        ue(r); ue(r); bits(r, 1);  // bit depths, qpprime_y_zero_transform_bypass
        if (bits(r, 1)) {          // seq_scaling_matrix_present
            for (unsigned list = 0; list < (chroma != 3 ? 8u : 12u) && !r->failed; list++) {
                if (!bits(r, 1)) continue;
                int last = 8, next = 8;
                for (int j = 0; j < (list < 6 ? 16 : 64) && !r->failed; j++) {
                    if (next != 0) next = (last + se(r) + 256) % 256;
                    last = next == 0 ? last : next;
                }
            }
        }
        break;
    }
    ue(r);  // log2_max_frame_num_minus4
    unsigned order = ue(r);
    if (order == 0) {
        ue(r);
    } else if (order == 1) {
        bits(r, 1); se(r); se(r);
        unsigned cycle = ue(r);
        for (unsigned i = 0; i < cycle && i < 256 && !r->failed; i++) se(r);
    }
    unsigned references = ue(r);
    return r->failed || references > 16 ? 0 : (int) references;
}

static int hevc_pictures(reader *r) {
    bits(r, 16);  // the NAL header
    bits(r, 4);   // sps_video_parameter_set_id
    unsigned sub_layers = bits(r, 3);  // max_sub_layers_minus1
    bits(r, 1);
    bits(r, 32); bits(r, 32); bits(r, 32);  // profile_tier_level's general part (96 bits)
    unsigned profile_present[8] = {0}, level_present[8] = {0};
    for (unsigned i = 0; i < sub_layers; i++) {
        profile_present[i] = bits(r, 1);
        level_present[i] = bits(r, 1);
    }
    if (sub_layers > 0) {
        for (unsigned i = sub_layers; i < 8; i++) bits(r, 2);
    }
    for (unsigned i = 0; i < sub_layers; i++) {
        if (profile_present[i]) { bits(r, 32); bits(r, 32); bits(r, 24); }  // 88 bits
        if (level_present[i]) bits(r, 8);
    }
    ue(r);  // sps_seq_parameter_set_id
    if (ue(r) == 3) bits(r, 1);  // chroma_format_idc, separate_colour_plane
    ue(r); ue(r);                // width, height
    if (bits(r, 1)) { ue(r); ue(r); ue(r); ue(r); }  // the conformance window
    ue(r); ue(r); ue(r);  // bit depths, log2_max_pic_order_cnt_lsb_minus4
    unsigned every = bits(r, 1);  // sub_layer_ordering_info_present
    unsigned buffering = 0;
    for (unsigned i = every ? 0 : sub_layers; i <= sub_layers && !r->failed; i++) {
        buffering = ue(r) + 1;  // the highest sub-layer's is the last
        ue(r); ue(r);
    }
    return r->failed || buffering > 16 ? 0 : (int) buffering;
}

static int nal_pictures(int hevc, const uint8_t *nal, size_t size) {
    if (size < 2) return 0;
    int type = hevc ? (nal[0] >> 1) & 0x3f : nal[0] & 0x1f;
    if (type != (hevc ? 33 : 7)) return 0;
    static __thread reader r;
    load(&r, nal, size);
    return hevc ? hevc_pictures(&r) : h264_pictures(&r);
}

int cav_stream_pictures(int hevc, const uint8_t *data, size_t size) {
    if (!data || size < 4) return 0;
    if (data[0] == 1) {  // avcC or hvcC: length-prefixed NAL units
        size_t at;
        unsigned sets;
        if (hevc) {
            if (size < 23) return 0;
            unsigned arrays = data[22];
            at = 23;
            for (unsigned a = 0; a < arrays && at + 3 <= size; a++) {
                int type = data[at] & 0x3f;
                unsigned count = (unsigned) data[at + 1] << 8 | data[at + 2];
                at += 3;
                for (unsigned n = 0; n < count && at + 2 <= size; n++) {
                    size_t length = (size_t) data[at] << 8 | data[at + 1];
                    at += 2;
                    if (length > size - at) return 0;
                    if (type == 33) return nal_pictures(1, data + at, length);
                    at += length;
                }
            }
            return 0;
        }
        if (size < 8) return 0;
        sets = data[5] & 0x1f;
        at = 6;
        if (sets == 0 || at + 2 > size) return 0;
        size_t length = (size_t) data[at] << 8 | data[at + 1];
        at += 2;
        return length <= size - at ? nal_pictures(0, data + at, length) : 0;
    }
    // Annex B: NAL units after 00 00 01 start codes.
    for (size_t i = 0; i + 3 < size; i++) {
        if (data[i] != 0 || data[i + 1] != 0 || data[i + 2] != 1) continue;
        size_t start = i + 3, end = start;
        while (end + 2 < size && !(data[end] == 0 && data[end + 1] == 0 && data[end + 2] <= 1)) end++;
        if (end + 2 >= size) end = size;
        int pictures = nal_pictures(hevc, data + start, end - start);
        if (pictures) return pictures;
        i = end - 1;
    }
    return 0;
}
