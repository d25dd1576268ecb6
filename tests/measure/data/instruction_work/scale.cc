namespace kern {
// a[i] *= s: 1 flop, 8 bytes loaded and 8 stored per element.
template <class T> void scale(T* __restrict a, T s, long n) {
    for (long i = 0; i < n; ++i)
        a[i] *= s;
}
template void scale<double>(double*, double, long);
} // namespace kern
