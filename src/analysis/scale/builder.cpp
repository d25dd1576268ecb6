// Builder (analysis/scale/reader_detail.hpp): the series of a data set by their key while a reader runs.
#include "analysis/scale/reader_detail.hpp"

#include <algorithm>
#include <functional>
#include <stdexcept>

namespace roofcast::model::scale::reading {

std::size_t Builder::key_hash(std::string_view function, std::string_view metric) {
    m_key.assign(function);
    m_key += '\x1f';
    m_key += metric;
    return std::hash<std::string_view>{}(m_key);
}

std::size_t Builder::slot_of(std::size_t hash, std::string_view function, std::string_view metric) const {
    const std::size_t mask = m_slots.size() - 1;
    std::size_t i = hash & mask;
    for (; m_slots[i].series != k_empty; i = (i + 1) & mask)
        if (m_slots[i].hash == hash) {
            const Series& s = m_d.series[m_slots[i].series];
            if (s.function == function && s.metric == metric)
                break;
        }
    return i;
}

std::size_t Builder::find(std::size_t hash, std::string_view function, std::string_view metric) const {
    return m_slots.empty() ? k_empty : m_slots[slot_of(hash, function, metric)].series;
}

void Builder::grow() {
    std::vector<Slot> old(m_slots.empty() ? 64 : 2 * m_slots.size());
    old.swap(m_slots);
    const std::size_t mask = m_slots.size() - 1;
    for (const Slot& slot : old)
        if (slot.series != k_empty) {
            std::size_t i = slot.hash & mask;
            while (m_slots[i].series != k_empty)
                i = (i + 1) & mask;
            m_slots[i] = slot;
        }
}

std::vector<Point>& Builder::points_of(std::string_view function, std::string_view metric) {
    if (m_has_last && m_d.series[m_last].function == function && m_d.series[m_last].metric == metric)
        return m_d.series[m_last].points;
    if (m_joined)
        throw std::logic_error("a data set's builder took rows after joining the parts read beside it");
    if (2 * (m_hashes.size() + 1) > m_slots.size())
        grow();
    const std::size_t hash = key_hash(function, metric);
    Slot& slot = m_slots[slot_of(hash, function, metric)];
    if (slot.series == k_empty) {
        slot = Slot{hash, m_d.series.size()};
        m_hashes.push_back(hash);
        m_d.series.push_back(Series{std::string(function), std::string(metric), {}, {}});
        // Room for as many points as the series before has: series mostly share their points.
        if (slot.series > 0)
            m_d.series.back().points.reserve(m_d.series[slot.series - 1].points.size());
    }
    m_last = slot.series;
    m_has_last = true;
    return m_d.series[m_last].points;
}

Series& Builder::add(std::string_view function, std::string_view metric, const Coord& x,
                     std::vector<double> values) {
    auto& pts = points_of(function, metric);
    // Rows for a point already seen in this file are further repetitions of it.
    const auto same = std::find_if(pts.begin(), pts.end(), [&](const Point& p) { return p.x == x; });
    if (same != pts.end())
        same->values.insert(same->values.end(), values.begin(), values.end());
    else
        pts.push_back(Point{x, std::move(values)});
    return m_d.series[m_last];
}

void Builder::add(std::string_view function, std::string_view metric, const Coord& x, double value) {
    auto& pts = points_of(function, metric);
    for (auto& p : pts)
        if (p.x == x) {
            p.values.push_back(value);
            return;
        }
    pts.push_back(Point{x, {value}});
}

void Builder::join(const std::vector<Builder*>& parts) {
    // Where each series of part k was first read: this builder (0) or part j < k (j + 1), and its index
    // there. Every table is complete and only read here, so the series are looked up at once.
    struct Home {
        std::size_t part = 0;
        std::size_t series = k_empty;
    };
    std::vector<std::vector<Home>> earlier(parts.size());
    for (std::size_t k = 0; k < parts.size(); ++k) {
        const std::vector<Series>& mine = parts[k]->m_d.series;
        earlier[k].resize(mine.size());
        const auto n = static_cast<std::ptrdiff_t>(mine.size());
#pragma omp parallel for schedule(static, 4096)
        for (std::ptrdiff_t i = 0; i < n; ++i) {
            const auto u = static_cast<std::size_t>(i);
            const std::size_t hash = parts[k]->m_hashes[u];
            for (std::size_t j = 0; j <= k; ++j) {
                const Builder& b = j == 0 ? *this : *parts[j - 1];
                const std::size_t at = b.find(hash, mine[u].function, mine[u].metric);
                if (at != k_empty) {
                    earlier[k][u] = Home{j, at};
                    break;
                }
            }
        }
    }
    // In order: a series first read in part k joins the end; a further one's points and values join its
    // first.
    std::vector<std::vector<std::size_t>> index(parts.size()); // each part's series' index in this data set
    std::size_t total = m_d.series.size();
    for (const Builder* part : parts)
        total += part->m_d.series.size();
    m_d.series.reserve(total);
    for (std::size_t k = 0; k < parts.size(); ++k) {
        std::vector<Series>& mine = parts[k]->m_d.series;
        index[k].resize(mine.size());
        for (std::size_t i = 0; i < mine.size(); ++i) {
            const Home h = earlier[k][i];
            if (h.series == k_empty) {
                index[k][i] = m_d.series.size();
                m_d.series.push_back(std::move(mine[i]));
                continue;
            }
            const std::size_t at = h.part == 0 ? h.series : index[h.part - 1][h.series];
            index[k][i] = at;
            auto& pts = m_d.series[at].points;
            for (auto& p : mine[i].points) {
                const auto same =
                    std::find_if(pts.begin(), pts.end(), [&](const Point& q) { return q.x == p.x; });
                if (same != pts.end())
                    same->values.insert(same->values.end(), p.values.begin(), p.values.end());
                else
                    pts.push_back(std::move(p));
            }
        }
    }
    m_joined = true;
    m_has_last = false;
}

} // namespace roofcast::model::scale::reading
