// Feeds a fuzz input through the format registry (src/formats) as the commands do: every format's sniff
// looks at it, then the named format's reader reads it, and its scaling series where it has them.
#pragma once

#include "formats/format.hpp"

#include <string>
#include <string_view>
#include <vector>

inline void read_as(std::string_view format, const std::string& text, const std::string& path) {
    using namespace roofcast::model::formats;
    const Input in = Input::from_text(text, path);
    (void)claims(in);
    const FormatReader* f = find(format);
    std::vector<std::string> unread;
    (void)f->read(in, &unread);
    if (f->dataset)
        (void)f->dataset(in, &unread);
}
