// intab kernel test harness (issue 47): ggml's wasm SIMD kernel, as scripts/wasm's patches leave it,
// and ggml's generic C kernel side by side in one standalone module, so a test feeds both the same
// blocks. Built by scripts/build-kernel-test.mjs from the same staged llama.cpp as the wasm builds.
#include <stdlib.h>
#include "ggml-impl.h"
#include "ggml-cpu/quants.h"

// ggml-cpu.c's fp16 -> fp32 table (GGML_CPU_FP16_TO_FP32 reads it), filled as ggml_cpu_init fills it.
float ggml_table_f32_f16[1 << 16];

__attribute__((export_name("init"))) void init(void) {
    for (int i = 0; i < (1 << 16); ++i) {
        ggml_table_f32_f16[i] = GGML_COMPUTE_FP16_TO_FP32((ggml_fp16_t) i);
    }
}

__attribute__((export_name("alloc"))) void * alloc(size_t n) { return malloc(n); }

__attribute__((export_name("q6_K_wasm"))) float q6_K_wasm(int n, const void * x, const void * y) {
    float s;
    ggml_vec_dot_q6_K_q8_K(n, &s, 0, x, 0, y, 0, 1);
    return s;
}

__attribute__((export_name("q6_K_generic"))) float q6_K_generic(int n, const void * x, const void * y) {
    float s;
    ggml_vec_dot_q6_K_q8_K_generic(n, &s, 0, x, 0, y, 0, 1);
    return s;
}
