#include "compiler/spec/slurm_parser.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <vector>

namespace pai {

namespace {

const std::vector<std::string> kSlurmKeys = {"account", "partition", "qos", "reservation",
                                             "segment", "requeue",   "mpi", "container"};
const std::vector<std::string> kContainerKeys = {"image",    "mounts",    "workdir",
                                                 "writable", "mountHome", "name"};

bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.' || c == '-';
}

// A Slurm name (account, QoS, partition, reservation, container): letters, digits, '_', '.'
// and '-'.
bool is_slurm_name(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), word_char);
}

// Several Slurm names separated by ',' (sbatch takes a list of partitions or reservations).
bool is_slurm_name_list(const std::string& s) {
  if (s.empty() || s.front() == ',' || s.back() == ',' || s.find(",,") != std::string::npos) {
    return false;
  }
  return std::all_of(s.begin(), s.end(), [](char c) { return word_char(c) || c == ','; });
}

bool is_path(const std::string& s) { return !s.empty() && (s.front() == '/' || s.front() == '.'); }

const char kName[] = "letters, digits, '_', '.' and '-'";

class SlurmParser {
 public:
  SlurmParser(const std::string& path, const Plan& job, FieldReader& reader, Slurm* out)
      : path_(path), job_(job), reader_(reader), out_(*out) {}

  void parse(const Node& node);

 private:
  std::string at(const std::string& key) const { return join_path(path_, key); }
  void parse_container(const Node& node);
  void parse_mounts(const Node& node, const std::string& path);
  void parse_switch(const Node& node, const std::string& path, Switch* out);

  const std::string& path_;
  const Plan& job_;
  FieldReader& reader_;
  Slurm& out_;
};

void SlurmParser::parse(const Node& node) {
  static const std::vector<std::string> kNested = {"container.image", "container.mounts",
                                                   "container.workdir"};
  if (!reader_.mapping(node, path_, kSlurmKeys, kNested)) return;
  if (const Node* n = reader_.optional(node, path_, "account")) {
    reader_.matching(*n, at("account"), is_slurm_name,
                     std::string("an account name (") + kName + ")", &out_.account);
  }
  if (const Node* n = reader_.optional(node, path_, "partition")) {
    reader_.matching(*n, at("partition"), is_slurm_name_list,
                     std::string("a partition name (") + kName + "; several separated by ',')",
                     &out_.partition);
  }
  if (const Node* n = reader_.optional(node, path_, "qos")) {
    reader_.matching(*n, at("qos"), is_slurm_name, std::string("a QOS name (") + kName + ")",
                     &out_.qos);
  }
  if (const Node* n = reader_.optional(node, path_, "reservation")) {
    reader_.matching(*n, at("reservation"), is_slurm_name_list,
                     std::string("a reservation name (") + kName + "; several separated by ',')",
                     &out_.reservation);
  }
  if (const Node* n = reader_.optional(node, path_, "segment")) {
    // Slurm keeps a segment's size in 16 bits.
    reader_.integer(*n, at("segment"), 1, 65535, &out_.segment);
  }
  if (const Node* n = reader_.optional(node, path_, "requeue")) {
    reader_.integer(*n, at("requeue"), 0, kMaxSlurmRequeue, &out_.requeue);
  }
  if (const Node* n = reader_.optional(node, path_, "mpi")) {
    const std::vector<std::string> plugins(kSlurmMpiPlugins.begin(), kSlurmMpiPlugins.end());
    size_t index = 0;
    if (reader_.enumeration(*n, at("mpi"), plugins, &index)) out_.mpi = plugins[index];
  }
  if (const Node* n = reader_.optional(node, path_, "container")) parse_container(*n);
}

void SlurmParser::parse_container(const Node& node) {
  const std::string path = at("container");
  if (!reader_.mapping(node, path, kContainerKeys)) return;
  SlurmContainer& c = out_.container;
  const Node* image = reader_.optional(node, path, "image");
  if (image) {
    reader_.matching(
        *image, join_path(path, "image"),
        [](const std::string& s) {
          return !s.empty() && std::none_of(s.begin(), s.end(), [](char ch) {
            return std::isspace(static_cast<unsigned char>(ch)) != 0 || ch == ',';
          });
        },
        "an image, [USER@][REGISTRY#]IMAGE[:TAG] or the path of a squashfs file", &c.image);
  } else if (job_.image.empty()) {
    reader_.error(node, path,
                  "the container needs an image: give slurm.container.image or the spec's image");
  } else {
    c.image = job_.image;
  }
  if (const Node* n = reader_.optional(node, path, "mounts")) {
    parse_mounts(*n, join_path(path, "mounts"));
  }
  if (const Node* n = reader_.optional(node, path, "workdir")) {
    reader_.absolute_path(*n, join_path(path, "workdir"), &c.workdir);
  }
  if (const Node* n = reader_.optional(node, path, "writable")) {
    parse_switch(*n, join_path(path, "writable"), &c.writable);
  }
  if (const Node* n = reader_.optional(node, path, "mountHome")) {
    parse_switch(*n, join_path(path, "mountHome"), &c.mount_home);
  }
  if (const Node* n = reader_.optional(node, path, "name")) {
    reader_.matching(*n, join_path(path, "name"), is_slurm_name,
                     std::string("a container name (") + kName + ")", &c.name);
  }
}

void SlurmParser::parse_mounts(const Node& node, const std::string& path) {
  if (!reader_.list(node, path, "a list of mounts, SRC:DST[:FLAGS]")) return;
  // The targets the container already has: the spec's mounts and output (slurm_script.h).
  std::map<std::string, std::string> targets;
  for (size_t i = 0; i < job_.mounts.size(); ++i) {
    targets.emplace(job_.mounts[i].target, index_path("mounts", i));
  }
  if (!job_.output.empty()) targets.emplace(job_.output, "output");
  for (size_t i = 0; i < node.items.size(); ++i) {
    const Node& item = node.items[i];
    const std::string item_path = index_path(path, i);
    reader_.record(item_path, item);
    std::string target;
    if (!item.is_scalar() || !is_pyxis_mount(item.scalar, &target)) {
      reader_.error(item, item_path,
                    "expected a mount SRC:DST[:FLAGS] (SRC a path, tmpfs or umount; DST a path; "
                    "FLAGS such as ro or ro+rprivate; no ','), got " +
                        describe(item));
      continue;
    }
    if (const auto [it, fresh] = targets.emplace(target, item_path); !fresh) {
      reader_.error(item, item_path,
                    "mount target " + quote(target) + " is already mounted by " + it->second);
      continue;
    }
    out_.container.mounts.push_back(item.scalar);
  }
}

void SlurmParser::parse_switch(const Node& node, const std::string& path, Switch* out) {
  bool on = false;
  if (reader_.boolean(node, path, &on)) *out = on ? Switch::On : Switch::Off;
}

}  // namespace

bool is_pyxis_mount(const std::string& entry, std::string* target) {
  if (entry.find(',') != std::string::npos) return false;
  const size_t first = entry.find(':');
  if (first == std::string::npos) return false;
  const std::string source = entry.substr(0, first);
  const size_t second = entry.find(':', first + 1);
  const std::string destination =
      entry.substr(first + 1, second == std::string::npos ? second : second - first - 1);
  if (!(is_path(source) || source == "tmpfs" || source == "umount") || !is_path(destination)) {
    return false;
  }
  if (second != std::string::npos) {
    const std::string flags = entry.substr(second + 1);
    size_t start = 0;
    while (true) {
      const size_t plus = flags.find('+', start);
      const std::string flag = flags.substr(start, plus == std::string::npos ? plus : plus - start);
      const bool ok = !flag.empty() && std::all_of(flag.begin(), flag.end(), [](char c) {
        return std::islower(static_cast<unsigned char>(c)) != 0 ||
               std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == '=';
      });
      if (!ok) return false;
      if (plus == std::string::npos) break;
      start = plus + 1;
    }
  }
  *target = destination;
  return true;
}

void parse_slurm(const Node& node, const std::string& path, const Plan& job, FieldReader& reader,
                 Slurm* out) {
  SlurmParser(path, job, reader, out).parse(node);
}

}  // namespace pai
