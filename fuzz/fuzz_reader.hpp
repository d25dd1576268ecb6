// One libFuzzer entry point per roofcast reader. Each target defines `read_input(text)`, which feeds the
// text through exactly the path the command line takes; a core::Error (a one-line input error) or any
// std::exception (printed as one line by the CLI's handler) is an accepted outcome, while a crash, a
// sanitizer report, a hang or a leak is a finding. Built only with -DROOFCAST_FUZZ=ON (clang).
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

void read_input(const std::string& text);

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        read_input(std::string(reinterpret_cast<const char*>(data), size));
    } catch (const std::exception&) {
    }
    return 0;
}
