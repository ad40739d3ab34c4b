/* One lock around liborc's compile and free.
 *
 * libvips builds small vector programs with liborc for some operations (the
 * vertical reduce every thumbnail runs, among them): it compiles them when
 * the operation is built and frees them when it is disposed, on whichever
 * thread drops the last reference. liborc 0.4.33, Debian 12's, keeps the
 * memory its compiled code lives in on lists that orc_program_compile and
 * orc_program_free change without a common lock, so two decodes on two
 * threads can corrupt them: "double free or corruption" or a segmentation
 * fault in orc_code_free or orc_code_allocate_codemem, or a thread spinning
 * forever on a broken list. Seen: a sheet of 23 small images on two threads
 * (Tests/CLITests/ShardTests) died about once in 300 runs; libvips' resize
 * built and freed on two threads (Tests/VipsTests/ConcurrentDecodeTests)
 * crashed or hung in four runs of five.
 *
 * These two definitions take the place of liborc's for libvips (the
 * executable's symbols come first in the dynamic linker's search, as a
 * malloc replacement's do) and call liborc's own, found with RTLD_NEXT,
 * under one mutex. Compiling is rare (once per operation built) and short,
 * so the lock costs nothing measurable; running a compiled program takes no
 * lock. With an unfixed liborc the lock is what makes decoding on several
 * threads safe; with a fixed one it is harmless.
 *
 * The types are liborc's in all but name: OrcProgram is opaque here, and
 * OrcCompileResult is an enum, passed as an int.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include "CVipsShim.h"

static pthread_mutex_t cvips_orc_lock = PTHREAD_MUTEX_INITIALIZER;
static int (*cvips_orc_compile)(void *);
static void (*cvips_orc_free)(void *);
static int cvips_orc_resolved;
static unsigned long cvips_orc_calls;

/* Under the lock. */
static void cvips_orc_resolve(void) {
    if (cvips_orc_resolved) return;
    cvips_orc_compile = (int (*)(void *)) dlsym(RTLD_NEXT, "orc_program_compile");
    cvips_orc_free = (void (*)(void *)) dlsym(RTLD_NEXT, "orc_program_free");
    cvips_orc_resolved = 1;
}

/* ORC_COMPILE_RESULT_UNKNOWN_COMPILE: libvips then runs its C code instead. */
#define CVIPS_ORC_NOT_COMPILED 0x100

int orc_program_compile(void *program) {
    pthread_mutex_lock(&cvips_orc_lock);
    cvips_orc_resolve();
    int result = cvips_orc_compile ? cvips_orc_compile(program) : CVIPS_ORC_NOT_COMPILED;
    cvips_orc_calls++;
    pthread_mutex_unlock(&cvips_orc_lock);
    return result;
}

void orc_program_free(void *program) {
    pthread_mutex_lock(&cvips_orc_lock);
    cvips_orc_resolve();
    if (cvips_orc_free) cvips_orc_free(program);
    cvips_orc_calls++;
    pthread_mutex_unlock(&cvips_orc_lock);
}

unsigned long cvips_orc_locked_calls(void) {
    pthread_mutex_lock(&cvips_orc_lock);
    cvips_orc_resolve();
    unsigned long calls = cvips_orc_compile && cvips_orc_free ? cvips_orc_calls : 0;
    pthread_mutex_unlock(&cvips_orc_lock);
    return calls;
}
