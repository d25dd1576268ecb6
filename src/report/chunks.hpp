// Writing a large document in pieces: the items (series of a data set, say) are formatted in chunks on
// every OpenMP thread and handed to the sink strictly in order, a few chunks per thread at a time, so that
// the whole text is never held at once. `format(begin, end, out)` appends items [begin, end) to `out` and
// must not throw (check what can fail before the first piece is written).
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <omp.h>
#include <string>
#include <string_view>
#include <vector>

namespace roofcast::report {

using TextSink = std::function<void(std::string_view)>;

template <class Format>
void write_in_chunks(std::size_t items, std::size_t chunk, const Format& format, const TextSink& sink) {
    const std::size_t wave = chunk * 4 * static_cast<std::size_t>(std::max(1, omp_get_max_threads()));
    std::vector<std::string> pieces;
    for (std::size_t w = 0; w < items; w += wave) {
        const std::size_t end = std::min(items, w + wave);
        const std::size_t count = (end - w + chunk - 1) / chunk;
        pieces.resize(count);
#pragma omp parallel for schedule(dynamic, 1)
        for (std::ptrdiff_t c = 0; c < static_cast<std::ptrdiff_t>(count); ++c) {
            const std::size_t b = w + static_cast<std::size_t>(c) * chunk;
            pieces[static_cast<std::size_t>(c)].clear();
            format(b, std::min(end, b + chunk), pieces[static_cast<std::size_t>(c)]);
        }
        for (std::size_t c = 0; c < count; ++c)
            sink(pieces[c]);
    }
}

} // namespace roofcast::report
