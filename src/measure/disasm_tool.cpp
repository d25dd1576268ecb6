// Running nm and objdump for measure/disasm.hpp: the binary is checked first (an x86-64 ELF file), the
// matching functions are found in the symbol table and each one is disassembled alone, so inspecting a
// kernel of the 10+ MB roofcast binary costs a few small objdump runs rather than one of the whole file.
#include "core/process.hpp"
#include "measure/disasm.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdlib>
#include <cxxabi.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <memory>
#include <optional>

namespace roofcast::measure {

namespace {

// More matching functions than this are not disassembled (a prefix such as "std::" would match
// thousands); the inspection says so.
constexpr std::size_t k_max_functions = 64;
constexpr double k_tool_timeout_s = 60;
constexpr std::size_t k_max_nm_bytes = std::size_t{128} << 20;
constexpr std::size_t k_max_objdump_bytes = std::size_t{32} << 20;
constexpr std::uint16_t k_elf_machine_x86_64 = 62;

// A hexadecimal field of nm's output ("00000000002bd960"), nothing else.
std::optional<std::uint64_t> hex_field(std::string_view s) {
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size())
        return std::nullopt;
    return v;
}

std::string demangle(const std::string& mangled) {
    int status = 0;
    std::unique_ptr<char, decltype(&std::free)> out(
        abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), &std::free);
    return status == 0 && out ? std::string(out.get()) : mangled;
}

// An empty string when `binary` is an x86-64 ELF file, else what is wrong with it.
std::string check_elf(const std::string& binary) {
    std::error_code ec;
    if (!std::filesystem::exists(binary, ec))
        return "no such file (expected an x86-64 ELF executable or shared library)";
    if (!std::filesystem::is_regular_file(binary, ec))
        return "not a regular file (expected an x86-64 ELF executable or shared library)";
    std::ifstream in(binary, std::ios::binary);
    std::array<unsigned char, 20> head{};
    in.read(reinterpret_cast<char*>(head.data()), head.size());
    if (in.gcount() < static_cast<std::streamsize>(head.size()) || head[0] != 0x7f || head[1] != 'E' ||
        head[2] != 'L' || head[3] != 'F')
        return "not an ELF file (expected an x86-64 executable or shared library)";
    const auto machine = static_cast<std::uint16_t>(head[18] | (head[19] << 8)); // e_machine, little endian
    if (head[5] != 1 || machine != k_elf_machine_x86_64)
        return fmt::format("an ELF file for machine {} (expected x86-64, machine {})", machine,
                           k_elf_machine_x86_64);
    return {};
}

struct Symbol {
    std::uint64_t address = 0, size = 0;
    std::string name; // demangled
};

// Text symbols of `nm --defined-only -S` whose demangled name matches.
std::vector<Symbol> matching_symbols(const std::string& nm_text, const std::string& prefix) {
    std::vector<Symbol> out;
    std::size_t pos = 0;
    while (pos < nm_text.size()) {
        const auto nl = std::min(nm_text.find('\n', pos), nm_text.size());
        const std::string_view line(nm_text.data() + pos, nl - pos);
        pos = nl + 1;
        // "00000000002bd960 00000000000007d9 T _ZN8roofcast..."
        const auto s1 = line.find(' ');
        const auto s2 = s1 == std::string_view::npos ? s1 : line.find(' ', s1 + 1);
        const auto s3 = s2 == std::string_view::npos ? s2 : line.find(' ', s2 + 1);
        if (s3 == std::string_view::npos || s3 != s2 + 2)
            continue;
        const char type = line[s2 + 1];
        if (type != 't' && type != 'T' && type != 'w' && type != 'W')
            continue;
        const auto address = hex_field(line.substr(0, s1));
        const auto size = hex_field(line.substr(s1 + 1, s2 - s1 - 1));
        if (!address || !size || *size == 0)
            continue;
        std::string name = demangle(std::string(line.substr(s3 + 1)));
        if (symbol_matches(name, prefix))
            out.push_back(Symbol{*address, *size, std::move(name)});
    }
    std::sort(out.begin(), out.end(), [](const Symbol& a, const Symbol& b) { return a.address < b.address; });
    out.erase(std::unique(out.begin(), out.end(),
                          [](const Symbol& a, const Symbol& b) { return a.address == b.address; }),
              out.end());
    return out;
}

// The binary as an operand of nm and objdump: a name starting with '-' ("-h") would be read as an option.
std::string operand(const std::string& path) {
    return !path.empty() && path.front() == '-' ? "./" + path : path;
}

std::string tool_failure(const std::string& tool, const core::CapturedOutput& o) {
    if (o.timed_out)
        return fmt::format("{} did not finish within {:.0f} s", tool, k_tool_timeout_s);
    if (o.truncated)
        return fmt::format("{} printed more than the bounded output", tool);
    return fmt::format("{} failed (exit status {})", tool, o.status);
}

} // namespace

CodeInspection inspect_function(const std::string& binary, const std::string& symbol_prefix) {
    CodeInspection r;
    r.binary = binary;
    r.symbol = symbol_prefix;
    auto fail = [&](std::string why, std::string bad_input) {
        r.unavailable = std::move(why);
        r.bad_input = std::move(bad_input);
        return r;
    };
    if (symbol_prefix.empty())
        return fail("empty symbol (expected the start of a function's demangled name)", "symbol");
    if (std::string why = check_elf(binary); !why.empty())
        return fail(std::move(why), "binary");
    if (!core::find_in_path("objdump") || !core::find_in_path("nm"))
        return fail("objdump not installed (binutils)", "");

    core::CaptureOptions nm_opt;
    nm_opt.max_bytes = k_max_nm_bytes;
    nm_opt.timeout_s = k_tool_timeout_s;
    const core::CapturedOutput nm =
        core::capture_program({"nm", "--defined-only", "-S", operand(binary)}, nm_opt);
    if (nm.status != 0 || nm.truncated || nm.timed_out)
        return fail(tool_failure("nm", nm), "");
    if (nm.output.empty())
        return fail("no symbol table (a stripped binary; expected one built without -s)", "binary");
    std::vector<Symbol> symbols = matching_symbols(nm.output, symbol_prefix);
    if (symbols.empty())
        return fail(fmt::format("no function whose demangled name starts with '{}'", symbol_prefix),
                    "symbol");

    // One objdump per function, restricted to its address range: a whole 10 MB binary would take
    // seconds and hundreds of megabytes of text.
    std::string text;
    for (std::size_t i = 0; i < symbols.size(); ++i) {
        if (i == k_max_functions)
            break;
        core::CaptureOptions o;
        o.max_bytes = k_max_objdump_bytes;
        o.timeout_s = k_tool_timeout_s;
        const core::CapturedOutput d = core::capture_program(
            {"objdump", "-d", "--no-show-raw-insn", "-C",
             fmt::format("--start-address=0x{:x}", symbols[i].address),
             fmt::format("--stop-address=0x{:x}", symbols[i].address + symbols[i].size), operand(binary)},
            o);
        if (d.status != 0 || d.truncated || d.timed_out)
            return fail(tool_failure("objdump", d), "");
        text += d.output;
    }
    CodeInspection parsed = parse_objdump(text, symbol_prefix);
    parsed.binary = binary;
    parsed.functions_not_inspected = symbols.size() - std::min(symbols.size(), k_max_functions);
    return parsed;
}

std::string self_binary() {
    std::error_code ec;
    const std::filesystem::path p = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : p.string();
}

} // namespace roofcast::measure
