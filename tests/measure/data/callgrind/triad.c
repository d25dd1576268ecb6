// STREAM triad x[i] = y[i] + s * z[i] over N doubles, in a function kept out of line, called CALLS times:
// the fixture of tests/measure/profile/test_callgrind.cpp (make-fixture.sh runs it under callgrind).
// gcc -O3 -march=x86-64-v3 vectorises the loop four doubles (one 256-bit FMA) at a time, so its body runs
// N / 4 = 250 times per call and the 3 elements left over run in the remainder code after it.
#define N 1003
#define CALLS 3

double a[N], b[N], c[N];

__attribute__((noinline, noclone)) void triad(double* restrict x, const double* restrict y,
                                              const double* restrict z, double s, long n) {
    for (long i = 0; i < n; ++i)
        x[i] = y[i] + s * z[i];
}

int main(void) {
    for (long i = 0; i < N; ++i) {
        b[i] = (double)i;
        c[i] = 2.0 * (double)i;
    }
    for (int k = 0; k < CALLS; ++k)
        triad(a, b, c, 0.5, N);
    return a[N - 1] == (double)(N - 1) * 2.0 ? 0 : 1;
}
