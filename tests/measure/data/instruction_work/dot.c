// s += x[i] * y[i] in single precision: 2 flops, 8 bytes loaded per element.
float dot(const float* x, const float* y, long n) {
    float s = 0;
    for (long i = 0; i < n; ++i)
        s += x[i] * y[i];
    return s;
}
