#include <cstdlib>
extern "C" void triad(double* __restrict a, const double* __restrict b, const double* __restrict c, double s, long n);
extern "C" float dot(const float* x, const float* y, long n);
namespace kern {
template <class T> void scale(T* a, T s, long n);
}
static double a[4096], b[4096], c[4096];
static float x[4096], y[4096];
int main(int argc, char** argv) {
    long n = argc > 1 ? std::atol(argv[1]) : 1003;
    if (n < 0 || n > 4096)
        return 2;
    triad(a, b, c, 3.0, n);
    kern::scale(a, 0.5, n);
    return static_cast<int>(dot(x, y, n)) + static_cast<int>(a[0]);
}
