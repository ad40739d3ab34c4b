/* floor: the decode floor scripts/bench measures collage against.
 *
 *     floor WIDTH HEIGHT FILE...
 *
 * libvips' thumbnail of each file to WIDTH x HEIGHT (cover, then a centred
 * crop), single-threaded, written to memory and thrown away: the work a
 * contact sheet cannot avoid, and nothing else (no header pass, no
 * composing, no encoding, no writing). scripts/bench runs two of these at
 * once over the two halves of a folder: what two cores can decode.
 *
 * Built by scripts/bench: cc -O2 floor.c $(pkg-config --cflags --libs vips)
 */
#include <stdio.h>
#include <stdlib.h>
#include <vips/vips.h>

int main(int argc, char **argv) {
    if (VIPS_INIT(argv[0])) vips_error_exit(NULL);
    if (argc < 4) {
        fprintf(stderr, "usage: floor WIDTH HEIGHT FILE...\n");
        return 64;
    }
    int width = atoi(argv[1]), height = atoi(argv[2]);
    if (width < 1 || height < 1) {
        fprintf(stderr, "floor: WIDTH and HEIGHT must be positive\n");
        return 64;
    }
    vips_concurrency_set(1);
    vips_cache_set_max(0);
    int failed = 0;
    for (int i = 3; i < argc; i++) {
        VipsImage *tile;
        size_t size;
        void *pixels = NULL;
        if (!vips_thumbnail(argv[i], &tile, width, "height", height, "crop", VIPS_INTERESTING_CENTRE,
                            "size", VIPS_SIZE_BOTH, NULL)) {
            pixels = vips_image_write_to_memory(tile, &size);
            g_object_unref(tile);
        }
        if (!pixels) {
            fprintf(stderr, "floor: %s: %s", argv[i], vips_error_buffer());
            vips_error_clear();
            failed = 1;
        }
        g_free(pixels);
    }
    vips_shutdown();
    return failed;
}
