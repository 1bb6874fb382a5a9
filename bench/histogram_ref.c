/*
 * histogram_ref.c - gcc's side of bench/histogram.py: 256-bin byte histograms with OpenMP.
 *
 *   gcc -O3 -march=native -fopenmp -fPIC -shared histogram_ref.c -o libhistogram_ref.so
 *
 * hist_atomic is the OpenCL kernel's loop (one `omp atomic` increment of the shared bins per
 * element); hist_private is what a C programmer writes for speed (a private histogram per
 * thread, merged with one atomic add per bin and thread): the machine's limit for the result.
 * `bins` accumulates across calls; counts wrap modulo 2^32.
 */
#include <omp.h>
#include <stdint.h>
#include <string.h>

void hist_atomic(const uint8_t *restrict data, uint32_t *restrict bins, long n, int threads)
{
#pragma omp parallel for schedule(static) num_threads(threads)
    for (long i = 0; i < n; ++i) {
#pragma omp atomic
        bins[data[i]]++;
    }
}

void hist_private(const uint8_t *restrict data, uint32_t *restrict bins, long n, int threads)
{
#pragma omp parallel num_threads(threads)
    {
        uint32_t mine[256];
        memset(mine, 0, sizeof mine);
#pragma omp for schedule(static)
        for (long i = 0; i < n; ++i)
            mine[data[i]]++;
        for (int b = 0; b < 256; ++b)
            if (mine[b]) {
#pragma omp atomic
                bins[b] += mine[b];
            }
    }
}
