#include "core/stream_catalogue.hpp"

#include <algorithm>

namespace roofcast::core {

const StreamDescriptor* find_stream_kernel(std::string_view name) {
    for (const auto& d : k_stream_catalogue)
        if (d.name == name)
            return &d;
    return nullptr;
}

double write_fraction(const StreamDescriptor& d) {
    return static_cast<double>(d.bytes_written) / (d.bytes_read + d.bytes_written);
}

std::string stream_kernel_names(std::string_view separator) {
    std::string out;
    for (const auto& d : k_stream_catalogue)
        out += (out.empty() ? "" : std::string(separator)) + std::string(d.name);
    return out;
}

const std::array<std::string_view, k_stream_kernel_count>& roof_kernel_preference() {
    static const auto k_order = [] {
        std::array<const StreamDescriptor*, k_stream_kernel_count> by_rank{};
        for (std::size_t i = 0; i < k_stream_kernel_count; ++i)
            by_rank[i] = &k_stream_catalogue[i];
        std::stable_sort(by_rank.begin(), by_rank.end(),
                         [](const auto* a, const auto* b) { return a->roof_rank < b->roof_rank; });
        std::array<std::string_view, k_stream_kernel_count> names{};
        for (std::size_t i = 0; i < k_stream_kernel_count; ++i)
            names[i] = by_rank[i]->name;
        return names;
    }();
    return k_order;
}

} // namespace roofcast::core
