/*
 * OpenCL C twins of the kernels of bench/transforms_onoff.py (bench/kernels/<name>.mlir),
 * built by PoCL with no options (OpenCL C 1.2, as the shared kernels.cl). Same arithmetic in
 * the same order as the MLIR; conv3x3_bounds, spmv_* and branch_heavy leave FP_CONTRACT at
 * its OpenCL default (PoCL may fuse multiply-adds, as a user's kernel gets), mandelbrot turns
 * it off so that its escape counts are exact.
 */

/* 3x3 cross-correlation, unpadded width x height image, zero padding by bounds checks in
 * the tap loops. */
__kernel void conv3x3_bounds(const int width, const int height,
                             __global const float *restrict in,
                             __global float *restrict out,
                             __constant float *restrict w)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    float acc = 0.0f;
    for (int j = 0; j < 3; ++j) {
        for (int i = 0; i < 3; ++i) {
            const int yy = y + j - 1;
            const int xx = x + i - 1;
            if (yy >= 0 && yy < height && xx >= 0 && xx < width)
                acc += w[3 * j + i] * in[yy * width + xx];
        }
    }
    out[y * width + x] = acc;
}

/* out[i] = x[idx[i]] */
__kernel void gather(__global const int *restrict idx,
                     __global const float *restrict x,
                     __global float *restrict out)
{
    const size_t i = get_global_id(0);
    out[i] = x[idx[i]];
}

/* CSR sparse matrix x dense vector, one row per work-item */
__kernel void spmv_csr(__global const int *restrict rowptr,
                       __global const int *restrict cols,
                       __global const float *restrict vals,
                       __global const float *restrict x,
                       __global float *restrict y)
{
    const size_t i = get_global_id(0);
    float acc = 0.0f;
    for (int k = rowptr[i]; k < rowptr[i + 1]; ++k)
        acc += vals[k] * x[cols[k]];
    y[i] = acc;
}

/* ELLPACK (column-major) sparse matrix x dense vector: K entries per row, n rows */
__kernel void spmv_ell(const int K, const int n,
                       __global const int *restrict cols,
                       __global const float *restrict vals,
                       __global const float *restrict x,
                       __global float *restrict y)
{
    const int i = get_global_id(0);
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc += vals[k * n + i] * x[cols[k * n + i]];
    y[i] = acc;
}

/* data-dependent branch: heavy math for x > 0, cheap otherwise */
__kernel void branch_heavy(__global const float *restrict x, __global float *restrict y)
{
    const size_t i = get_global_id(0);
    const float v = x[i];
    float r;
    if (v > 0.0f) {
        float p = 0.0625f * v + -0.125f;
        p = p * v + 0.1875f;
        p = p * v + -0.25f;
        p = p * v + 0.3125f;
        p = p * v + -0.375f;
        p = p * v + 0.4375f;
        p = p * v + -0.5f;
        p = p * v + 1.0f;
        r = sqrt(v) * p / (1.0f + v * v);
    } else {
        r = v * 0.5f - 1.0f;
    }
    y[i] = r;
}

/* Mandelbrot escape-time count, at most maxit iterations */
__kernel void mandelbrot(const float x0, const float dx, const float y0, const float dy,
                         const int maxit, const int width, __global int *restrict out)
{
#pragma OPENCL FP_CONTRACT OFF
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    const float cx = x0 + (float)x * dx;
    const float cy = y0 + (float)y * dy;
    float zx = 0.0f, zy = 0.0f;
    int k = 0;
    while (k < maxit) {
        const float xx = zx * zx;
        const float yy = zy * zy;
        if (!(xx + yy <= 4.0f))
            break;
        const float xy = zx * zy;
        zx = (xx - yy) + cx;
        zy = (xy + xy) + cy;
        ++k;
    }
    out[y * width + x] = k;
}
