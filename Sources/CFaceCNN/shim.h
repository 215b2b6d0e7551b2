// CFaceCNN: the C binding of Shiqi Yu's libfacedetection (YuNet), loaded at run time with dlopen.
//
// There is no link-time dependency: the project builds, and everything but engine=cnn runs, without the
// library. `launch/fetch-yuface` installs the library from the PyPI wheel yuface==2023.5.1 (x86_64, AVX2/FMA):
//   <dir>/yuface/libfacedetection.so        (RPATH $ORIGIN/../yuface.libs)
//   <dir>/yuface.libs/libgomp-a34b3233.so.1.0.0
// Its one entry point is the C++ function
//   int* facedetect_cnn(unsigned char *result_buffer, unsigned char *bgr, int width, int height, int step)
// (mangled _Z14facedetect_cnnPhS_iii): input packed 8-bit BGR, rows `step` bytes apart; output written into
// `result_buffer` (0x9000 bytes, as the library's own examples allocate): an int count, then per face 16
// shorts: score (0...100), x, y, width, height, five landmarks as (x, y) pairs (the image's left eye, its
// right eye, nose tip, mouth left, mouth right), one unused. Verified on real photos (lena.jpg, messi5.jpg,
// astronaut.png): boxes and eye points fall on the faces; see CNNFaceEngine.swift.
//
// All pointers stay in this file: Swift passes arrays (implicit bridging) and gets plain structs back.
// Loading is not thread-safe: the Swift side serialises it. Detection is re-entrant (the library keeps no
// state between calls; every call allocates its own buffers).
#pragma once
#include <dlfcn.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// One face as the library reports it, in the input image's pixels.
typedef struct {
    /// 0...100.
    int score;
    int x, y, width, height;
    /// (x, y) of the image's left eye, right eye, nose tip, mouth left, mouth right.
    int landmarks[10];
} vf_facecnn_face;

typedef int *(*vf_facecnn_detect_fn)(unsigned char *, unsigned char *, int, int, int);
typedef void (*vf_facecnn_threads_fn)(int);

static vf_facecnn_detect_fn vf_facecnn_entry = NULL;
static vf_facecnn_threads_fn vf_facecnn_set_threads = NULL;

/// Loads `library` (a path) once per process. Returns 1 when loaded (now or before), 0 with a message in
/// `error` (NUL-terminated, at most `error_size` bytes) when the file is missing, does not load, or lacks
/// the entry point. On the first success, also sets glibc's M_MMAP_THRESHOLD to 32 MiB: the library
/// allocates its feature maps on every call, and mmap'd (page-faulted, zeroed) blocks cost about a third
/// of its time at 640x480 (measured 39.5 -> 29.6 ms); and M_TRIM_THRESHOLD to 256 MiB, since each call frees
/// everything and glibc would otherwise give the heap's top back and fault it in again on the next call
/// (compose engine=cnn at 640x480: 81 -> 52 ms per analysis). Process-wide; stops glibc's dynamic threshold.
static inline int vf_facecnn_load(const char *library, char *error, int error_size) {
    if (vf_facecnn_entry != NULL) return 1;
    void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *why = dlerror();
        snprintf(error, (size_t)error_size, "%s", why ? why : "dlopen failed");
        return 0;
    }
    vf_facecnn_detect_fn entry = (vf_facecnn_detect_fn)dlsym(handle, "_Z14facedetect_cnnPhS_iii");
    if (entry == NULL) {
        snprintf(error, (size_t)error_size, "%s has no facedetect_cnn (_Z14facedetect_cnnPhS_iii)", library);
        dlclose(handle);
        return 0;
    }
    // The library's own libgomp (found through the handle's dependencies); absent in other builds.
    vf_facecnn_set_threads = (vf_facecnn_threads_fn)dlsym(handle, "omp_set_num_threads");
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, 256 * 1024 * 1024);
#endif
    vf_facecnn_entry = entry;
    return 1;
}

/// Whether `vf_facecnn_load` succeeded.
static inline int vf_facecnn_loaded(void) { return vf_facecnn_entry != NULL; }

/// Whether the library's OpenMP thread count can be set.
static inline int vf_facecnn_has_threads(void) { return vf_facecnn_set_threads != NULL; }

/// Detects faces in packed BGR (`step` bytes per row, at least 3 * width). `threads` > 0 sets the OpenMP
/// thread count of the calling thread first (an OpenMP setting is per calling thread). Writes up to
/// `capacity` faces into `faces`, in the library's order. Returns the number written, -1 when the
/// library is not loaded, -2 when the result buffer cannot be allocated.
static inline int vf_facecnn_detect(unsigned char *bgr, int width, int height, int step, int threads,
                                    vf_facecnn_face *faces, int capacity) {
    if (vf_facecnn_entry == NULL) return -1;
    unsigned char *buffer = (unsigned char *)malloc(0x9000);
    if (buffer == NULL) return -2;
    if (threads > 0 && vf_facecnn_set_threads != NULL) vf_facecnn_set_threads(threads);
    int *result = vf_facecnn_entry(buffer, bgr, width, height, step);
    int count = result ? result[0] : 0;
    if (count > 1024) count = 1024;  // the library's own cap; (0x9000 - 4) / 32 records fit
    int written = 0;
    for (int i = 0; i < count && written < capacity; i++) {
        const short *p = ((const short *)(result + 1)) + 16 * i;
        vf_facecnn_face *f = &faces[written++];
        f->score = p[0];
        f->x = p[1]; f->y = p[2]; f->width = p[3]; f->height = p[4];
        for (int k = 0; k < 10; k++) f->landmarks[k] = p[5 + k];
    }
    free(buffer);
    return written;
}
