/* 256-bin byte histograms as OpenCL users write them (bench/histogram.py runs these on PoCL;
 * the shared ../shared/bench/kernels.cl has none). Same work as bench/kernels/histogram*.mlir.
 * `bins` accumulates across launches (the caller zeroes it); counts wrap modulo 2^32. */

/* one global atomic per work-item */
__kernel void histogram_global(__global const uchar *data, __global uint *bins)
{
    atomic_inc(&bins[data[get_global_id(0)]]);
}

/* a private histogram per work-group in local memory, then one global atomic per bin and
 * group; needs a local size of at least 256 (the bench uses 256) */
__kernel void histogram_local(__global const uchar *data, __global uint *bins)
{
    __local uint local_bins[256];
    const uint lid = get_local_id(0);
    const uint lsz = get_local_size(0);
    for (uint b = lid; b < 256; b += lsz)
        local_bins[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_inc(&local_bins[data[get_global_id(0)]]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = lid; b < 256; b += lsz) {
        const uint c = local_bins[b];
        if (c)
            atomic_add(&bins[b], c);
    }
}
