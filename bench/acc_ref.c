/* gcc references for bench/acc_sum.py: the sum of n floats / doubles as an OpenMP reduction
 * loop (the loop an OpenACC compiler for the host would emit). `omp simd` lets gcc reassociate
 * the additions, as the xmux gang/worker/vector reduction does. The _1t versions are the same
 * loop on one thread: gcc's own 1-thread / 2-thread ratio shows what the memory allows. */
#include <stddef.h>

float acc_ref_sum_f32(const float *restrict x, long n)
{
    float s = 0.0f;
#pragma omp parallel for simd reduction(+ : s) schedule(static)
    for (long i = 0; i < n; ++i)
        s += x[i];
    return s;
}

double acc_ref_sum_f64(const double *restrict x, long n)
{
    double s = 0.0;
#pragma omp parallel for simd reduction(+ : s) schedule(static)
    for (long i = 0; i < n; ++i)
        s += x[i];
    return s;
}

float acc_ref_sum_f32_1t(const float *restrict x, long n)
{
    float s = 0.0f;
#pragma omp simd reduction(+ : s)
    for (long i = 0; i < n; ++i)
        s += x[i];
    return s;
}

double acc_ref_sum_f64_1t(const double *restrict x, long n)
{
    double s = 0.0;
#pragma omp simd reduction(+ : s)
    for (long i = 0; i < n; ++i)
        s += x[i];
    return s;
}
