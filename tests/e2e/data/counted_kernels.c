/* Kernels with known floating-point operations and core-side bytes, for the callgrind backend's exact
 * counts (tests/e2e/profile_callgrind.sh, bench/counted.sh). Usage: counted_kernels KERNEL N REPS, with
 * KERNEL one of triad, triadf, dot, dotf, spmv27, stencil7. Per call, for n elements (rows, points):
 *   triad    a[i] = b[i] + s * c[i]      double  2n flops, 24n bytes (two loads, one store)
 *   triadf   the same in float           float   2n flops, 12n bytes
 *   dot      s += x[i] * y[i]            double  2n flops, 16n bytes (a reduction: not vectorised
 *   dotf     the same in float           float   2n flops,  8n bytes  without reassociation)
 *   spmv27   y = A x, 27 non-zeros a row double  54n flops
 *   stencil7 7-point Jacobi, 7 flops per interior point of an n x 16 x 16 grid (double)
 *   copy     memcpy(a, b, 8n) by the C library: 8n bytes loaded, 8n stored (not in `all`)
 * KERNEL `all` runs each in turn; fork-triad runs triad in a forked child, exec-triad in an exec'd copy of
 * this program, no-valgrind runs triad natively and exits 3 under valgrind. Each kernel is its own out-of-line function, called REPS times; n that is not a multiple of any vector
 * width leaves remainder iterations. The result is printed so that nothing is optimised away. */
/* Out of line and out of interprocedural optimisation: GCC would otherwise clone a kernel for its constant
 * arguments (stencil7.constprop.0) or hoist a call it finds pure out of the repetition loop (dot). */
#if defined(__clang__)
#define KERNEL __attribute__((noinline))
#else
#define KERNEL __attribute__((noipa))
#endif
/* Between repetitions: memory may have changed, so no call is merged with the one before. */
static inline void barrier(void) { __asm__ volatile("" ::: "memory"); }

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

KERNEL void triad(double *a, const double *b, const double *c, double s, long n) {
    for (long i = 0; i < n; ++i)
        a[i] = b[i] + s * c[i];
}

KERNEL void triadf(float *a, const float *b, const float *c, float s, long n) {
    for (long i = 0; i < n; ++i)
        a[i] = b[i] + s * c[i];
}

KERNEL double dot(const double *x, const double *y, long n) {
    double s = 0.0;
    for (long i = 0; i < n; ++i)
        s += x[i] * y[i];
    return s;
}

KERNEL float dotf(const float *x, const float *y, long n) {
    float s = 0.0f;
    for (long i = 0; i < n; ++i)
        s += x[i] * y[i];
    return s;
}

KERNEL void spmv27(double *y, const double *val, const int *col, const double *x, long rows) {
    for (long r = 0; r < rows; ++r) {
        double s = 0.0;
        for (int k = 0; k < 27; ++k)
            s += val[r * 27 + k] * x[col[r * 27 + k]];
        y[r] = s;
    }
}

KERNEL void stencil7(double *b, const double *a, double s, long nx, long ny, long nz) {
    const long sy = nx, sz = nx * ny;
    for (long k = 1; k < nz - 1; ++k)
        for (long j = 1; j < ny - 1; ++j)
            for (long i = 1; i < nx - 1; ++i) {
                const long p = k * sz + j * sy + i;
                b[p] = s * (a[p] + a[p - 1] + a[p + 1] + a[p - sy] + a[p + sy] + a[p - sz] + a[p + sz]);
            }
}

static void *alloc(long n, size_t size) {
    void *p = calloc((size_t)n, size);
    if (!p) {
        fprintf(stderr, "counted_kernels: out of memory\n");
        exit(1);
    }
    return p;
}

static int run(const char *k, long n, long reps) {
    double check = 0;
    if (!strcmp(k, "triad") || !strcmp(k, "dot") || !strcmp(k, "spmv27")) {
        double *a = alloc(n, 8), *b = alloc(n, 8), *c = alloc(n, 8);
        for (long i = 0; i < n; ++i)
            b[i] = 1.0 + i % 7, c[i] = 0.5 * (i % 5);
        if (!strcmp(k, "spmv27")) {
            double *val = alloc(27 * n, 8);
            int *col = alloc(27 * n, sizeof(int));
            for (long i = 0; i < 27 * n; ++i)
                val[i] = 1.0 / (1 + i % 27), col[i] = (int)((i / 27 + i % 27) % n);
            for (long r = 0; r < reps; ++r, barrier())
                spmv27(a, val, col, b, n);
            free(val);
            free(col);
        }
        for (long r = 0; r < reps && !strcmp(k, "triad"); ++r, barrier())
            triad(a, b, c, 3.0, n);
        for (long r = 0; r < reps && !strcmp(k, "dot"); ++r, barrier())
            check += dot(b, c, n);
        check += a[n / 2];
        free(a), free(b), free(c);
    } else if (!strcmp(k, "triadf") || !strcmp(k, "dotf")) {
        float *a = alloc(n, 4), *b = alloc(n, 4), *c = alloc(n, 4);
        for (long i = 0; i < n; ++i)
            b[i] = 1.0f + i % 7, c[i] = 0.5f * (i % 5);
        for (long r = 0; r < reps && !strcmp(k, "triadf"); ++r, barrier())
            triadf(a, b, c, 3.0f, n);
        for (long r = 0; r < reps && !strcmp(k, "dotf"); ++r, barrier())
            check += dotf(b, c, n);
        check += a[n / 2];
        free(a), free(b), free(c);
    } else if (!strcmp(k, "copy")) {
        double *a = alloc(n, 8), *b = alloc(n, 8);
        for (long i = 0; i < n; ++i)
            b[i] = i % 13;
        for (long r = 0; r < reps; ++r, barrier())
            memcpy(a, b, (size_t)n * 8);
        check = a[n / 2];
        free(a), free(b);
    } else if (!strcmp(k, "stencil7")) {
        const long pts = n * 16 * 16;
        double *a = alloc(pts, 8), *b = alloc(pts, 8);
        for (long i = 0; i < pts; ++i)
            a[i] = i % 11;
        for (long r = 0; r < reps; ++r, barrier())
            stencil7(b, a, 1.0 / 7.0, n, 16, 16);
        check = b[8 * n * 16 + 8 * n + n / 2];
        free(a), free(b);
    } else {
        fprintf(stderr, "counted_kernels: unknown kernel '%s'\n", k);
        return 2;
    }
    printf("%s %g\n", k, check);
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: counted_kernels all|triad|triadf|dot|dotf|spmv27|stencil7|copy N REPS\n");
        return 2;
    }
    const long n = atol(argv[2]), reps = atol(argv[3]);
    if (n < 3 || reps < 1) {
        fprintf(stderr, "counted_kernels: expected N >= 3 and REPS >= 1\n");
        return 2;
    }
    /* The profiler's harder cases: the kernel in a forked child, in an exec'd image, and a program that
     * refuses to run under valgrind (its preload library in LD_PRELOAD) but runs natively. */
    if (!strcmp(argv[1], "fork-triad")) {
        const pid_t child = fork();
        if (child == 0) {
            const int rc = run("triad", n, reps);
            fflush(stdout);
            _exit(rc);
        }
        int status = 0;
        if (child < 0 || waitpid(child, &status, 0) != child)
            return 1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    }
    if (!strcmp(argv[1], "exec-triad")) {
        execl(argv[0], argv[0], "triad", argv[2], argv[3], (char *)0);
        return 1;
    }
    if (!strcmp(argv[1], "no-valgrind")) {
        const char *preload = getenv("LD_PRELOAD");
        if (preload && strstr(preload, "vgpreload")) {
            fprintf(stderr, "counted_kernels: refusing to run under valgrind\n");
            return 3;
        }
        return run("triad", n, reps);
    }
    if (strcmp(argv[1], "all"))
        return run(argv[1], n, reps);
    const char *all[] = {"triad", "triadf", "dot", "dotf", "spmv27", "stencil7"};
    for (int i = 0; i < 6; ++i)
        if (run(all[i], n, reps))
            return 1;
    return 0;
}
