// HEVC pictures for libvips' HEIF loader, decoded on several threads.
//
// libheif hands each HEVC-coded HEIF image to a decoder plugin; the one it
// ships starts libde265 with a single worker thread, so a 12 MP photo from a
// phone decodes on one core while the whole picture is held in memory.
// chevc_register adds a plugin of higher priority that starts libde265 with
// `threads` worker threads: libde265 then decodes a picture's rows (wavefront
// parallel processing) or tiles at once where the stream allows it. The
// pictures, and what libheif does with them, are the same.
#ifndef CHEVC_H
#define CHEVC_H

/// Registers the plugin with libheif, for every HEIF context made after it
/// (libvips' among them). Returns 0, or -1 when libheif refuses it. Call it
/// once, before the first HEIF file is read.
int chevc_register(int threads);

/// How many HEVC pictures the plugin has decoded in this process.
unsigned long chevc_pictures_decoded(void);

#endif
