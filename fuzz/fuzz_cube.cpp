// Fuzz target: a CUBE4 archive (profile.cubex, `profile --import-cube`, `scale`), through the format
// registry: libarchive's tar reader, the anchor's XML, the index and data files.
#include "fuzz_format.hpp"
#include "fuzz_reader.hpp"

void read_input(const std::string& text) {
    read_as("cube", text, "fuzz.cubex");
}
