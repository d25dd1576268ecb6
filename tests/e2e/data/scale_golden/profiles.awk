# Deterministic synthetic scaling profiles for e2e/scale_golden.sh (CSV: function,metric,<params>,value).
# Run with -v part=five|nine|two:
#   five  one parameter, cores = 8..128 (5 points): the shapes of bench/scale-speed.sh with +-2 % noise,
#         every 7th series with three repetitions per point, every 11th with a second metric;
#   nine  one parameter, cores = 1..256 (9 points): the same shapes plus breaks (piecewise), plateaus,
#         negative and zero values, missing points, duplicate rows and NaN values;
#   two   two parameters, cores x size on a 4 x 3 grid: additive and multiplicative shapes.
# Noise comes from a Park–Miller generator (16807 · seed mod 2^31 - 1, exact in a double), so that mawk
# and gawk print the same file.
function rnd() { seed = (seed * 16807) % 2147483647; return seed / 2147483647 - 0.5 }
function shape(s, a, b, x) {
    if (s == 0) return a
    if (s == 1) return a + b * x
    if (s == 2) return a + b * x * log(x) / log(2)
    if (s == 3) return a + b * sqrt(x)
    if (s == 4) return a + 1000 * b / x
    if (s == 5) return a * 1.05 ^ (-x) + b
    if (s == 6) return x < 16 ? a : a + b * (x - 16)          # a break: flat, then linear
    if (s == 7) return a + b * x * x / 100                     # quadratic
    if (s == 8) return -a - b * x                              # negative
    return (x <= 4) ? 0 : b * log(x)                           # zeros, then logarithmic
}
BEGIN {
    seed = 12345
    if (part == "five") {
        print "function,metric,cores,value"
        for (f = 0; f < 1800; f++) {
            s = f % 6; a = 1 + (f % 97); b = 0.5 + (f % 13) / 10
            reps = (f % 7 == 0) ? 3 : 1
            for (k = 3; k <= 7; k++) {
                x = 2 ^ k
                for (r = 0; r < reps; r++)
                    printf "main->f%d,time,%d,%.9g\n", f, x, shape(s, a, b, x) * (1 + 0.04 * rnd())
                if (f % 11 == 0)
                    printf "main->f%d,bytes,%d,%.9g\n", f, x, shape((s + 1) % 6, a, b, x) * (1 + 0.01 * rnd())
            }
        }
    } else if (part == "nine") {
        print "function,metric,cores,value"
        for (f = 0; f < 600; f++) {
            s = f % 10; a = 1 + (f % 89); b = 0.5 + (f % 17) / 10
            for (k = 0; k <= 8; k++) {
                x = 2 ^ k
                if (f % 13 == 5 && k == 4) continue                        # a missing point
                y = shape(s, a, b, x) * (1 + 0.06 * rnd())
                if (f % 29 == 3 && k == 2) printf "\"main->g%d, tail\",time,%d,nan\n", f, x
                printf "\"main->g%d, tail\",time,%d,%.9g\n", f, x, y
                if (f % 17 == 4) printf "\"main->g%d, tail\",time,%d,%.9g\n", f, x, y * (1 + 0.1 * rnd())
            }
        }
    } else {
        print "function,metric,cores,size,value"
        for (f = 0; f < 120; f++) {
            s = f % 4; a = 1 + (f % 31); b = 0.5 + (f % 7) / 10
            for (i = 0; i < 4; i++) for (j = 0; j < 3; j++) {
                p = 2 ^ (i + 2); n = 1000 * 2 ^ j
                if (s == 0) y = a + b * p + n / 1000
                else if (s == 1) y = a + b * p * n / 1000
                else if (s == 2) y = a + b * n / p
                else y = a * log(p) / log(2) + b * sqrt(n)
                printf "kernel%d,time,%d,%d,%.9g\n", f, p, n, y * (1 + 0.03 * rnd())
            }
        }
    }
}
