// YAML codec of the machine file's newer sections (topology.tlb, topology.huge_pages, the CPU identity and
// stream_capacity), kept beside machine.cpp so that file stays one idea. Internal to core: the
// machine reader and writer (machine.cpp) call these; readers throw InputError naming file and field.
#pragma once

#include "core/doc.hpp"
#include "core/machine.hpp"

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace roofcast::core {

// The string at `f`, which must be one of `allowed` (InputError listing them otherwise).
std::string one_of(const YamlField& f, const std::set<std::string>& allowed);
// A summary in the machine's tree (core/machine_write.cpp writes the tree as YAML and as JSON).
nlohmann::ordered_json summary_tree(const Summary& s);

std::vector<TlbInfo> tlb_from_yaml(const YamlField& seq);
nlohmann::ordered_json tlb_tree(const std::vector<TlbInfo>& tlb);
// "always" | "madvise" | "never"; an empty string is written as an absent key.
std::string huge_pages_from_yaml(const YamlField& f);

// topology.vendor, family, model and stepping (machine_identity.cpp), each optional, into `t`.
void read_cpu_identity(const YamlField& topology, Topology& t);

std::vector<StreamCapacity> stream_capacity_from_yaml(const YamlField& seq);
nlohmann::ordered_json stream_capacity_tree(const std::vector<StreamCapacity>& sc);

} // namespace roofcast::core
