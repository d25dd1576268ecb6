// How the timed terms of the mixed model combine. The roofline takes the largest term, assuming every
// transfer and the arithmetic overlap completely (Williams, Waterman & Patterson, CACM 52(4), 2009);
// the ECM model adds the data-transfer times, which on Intel cores do not overlap (Stengel, Treibig,
// Hager & Wellein, ICS 2015, Sect. 2, T_data = T_L1L2 + T_L2L3 + T_L3Mem); which transfers overlap is a
// property of the machine to be measured (Hofmann, Alappat, Hager, Fey & Wellein, "Bridging the
// architecture gap", Supercomputing Frontiers and Innovations 7(2), 2020, Sect. 3). roofcast measures it
// as one exponent p of the p-norm of the terms, t = (sum_i t_i^p)^(1/p): p = 1 is the sum, p -> infinity
// the maximum, and p is fitted on dedicated calibration loops (calibration.hpp), never on the kernels
// the model is scored on.
#pragma once

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

namespace roofcast::model {

// (sum t_i^p)^(1/p) over the positive terms; the maximum when p is absent. Scaled by the largest term
// so large p cannot overflow.
inline double overlap_norm(const std::vector<double>& terms, std::optional<double> p) {
    double top = 0;
    for (const double t : terms)
        top = std::max(top, t);
    if (!p || top <= 0)
        return top;
    double sum = 0;
    for (const double t : terms)
        if (t > 0)
            sum += std::pow(t / top, *p);
    return top * std::pow(sum, 1.0 / *p);
}

} // namespace roofcast::model
