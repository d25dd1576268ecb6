// normalize(): one point per coordinate (duplicates merged as repetitions), non-finite values dropped, and
// a note on each function measured at fewer points than the others (analysis/scale/dataset.hpp).
#include "analysis/scale/dataset.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace roofcast::model::scale {

namespace {

// Points already sorted, distinct, with only finite values: what the merge below would leave unchanged. The
// readers produce these for nearly every series; they keep their points as they are.
bool points_are_tidy(const std::vector<Point>& points) {
    for (std::size_t i = 0; i < points.size(); ++i) {
        if (points[i].values.empty() || (i > 0 && !(points[i - 1].x < points[i].x)))
            return false;
        for (double v : points[i].values)
            if (!std::isfinite(v))
                return false;
    }
    return true;
}

bool same_coordinates(const std::vector<Point>& a, const std::vector<Point>& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                              [](const Point& p, const Point& q) { return p.x == q.x; });
}

} // namespace

void normalize(Dataset& d) {
    std::set<Coord> all;
    const std::vector<Point>* last = nullptr; // the last tidy series's points, all already in `all`
    for (auto& s : d.series) {
        if (points_are_tidy(s.points)) {
            if (!last || !same_coordinates(*last, s.points))
                for (const auto& p : s.points)
                    all.insert(p.x);
            last = &s.points;
            continue;
        }
        std::map<Coord, std::vector<double>> by_point;
        std::size_t dropped = 0;
        bool duplicate = false;
        for (auto& p : s.points) {
            auto& dst = by_point[p.x];
            if (!dst.empty())
                duplicate = true;
            for (double v : p.values) {
                if (std::isfinite(v))
                    dst.push_back(v);
                else
                    ++dropped;
            }
        }
        if (dropped > 0)
            s.notes.push_back(fmt::format("{} non-finite value(s) (NaN/inf) dropped", dropped));
        if (duplicate)
            s.notes.push_back("duplicate points merged as repetitions");
        s.points.clear();
        for (auto& [x, vals] : by_point) {
            if (vals.empty())
                continue;
            all.insert(x);
            s.points.push_back(Point{x, std::move(vals)});
        }
    }
    // Functions missing at some points are modelled on the points they have; say so once.
    for (auto& s : d.series) {
        if (s.points.size() < all.size()) {
            std::vector<std::string> missing;
            std::size_t k = 0;
            for (const auto& x : all) {
                if (k < s.points.size() && s.points[k].x == x) {
                    ++k;
                } else {
                    missing.push_back(format_point(x, d.parameters));
                }
            }
            const std::string note = fmt::format("measured at {} of {} points (missing {})", s.points.size(),
                                                 all.size(), fmt::join(missing, "; "));
            if (std::find(s.notes.begin(), s.notes.end(), note) == s.notes.end()) {
                std::erase_if(s.notes, [](const std::string& n) { return n.rfind("measured at ", 0) == 0; });
                s.notes.push_back(note);
            }
        } else {
            std::erase_if(s.notes, [](const std::string& n) { return n.rfind("measured at ", 0) == 0; });
        }
    }
    for (auto& s : d.series) {
        if (s.notes.size() < 2)
            continue;
        std::vector<std::string> uniq;
        for (auto& n : s.notes)
            if (std::find(uniq.begin(), uniq.end(), n) == uniq.end())
                uniq.push_back(n);
        s.notes = std::move(uniq);
    }
}

} // namespace roofcast::model::scale
