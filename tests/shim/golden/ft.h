/* A header declaring task functions (OmpSs-1 style). */
#pragma omp task in([n]src) out([n]dst)
void copy_block(int n, const double *src, double *dst);
#pragma omp target device(smp) copy_deps
#pragma omp task inout([bs][bs]a)
void factor_block(int bs, double *a);
