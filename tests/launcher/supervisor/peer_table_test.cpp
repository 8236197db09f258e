// The per-peer table: the file the launcher creates next to each rank's ring, what the reader
// makes of tables a writer fills, tears or breaks, and the launcher giving each rank its own
// in PAI_TELEMETRY_PEERS_FILE.
#include "launcher/supervisor/peer_table.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <string>

#include "launcher/launcher_harness.h"
#include "launcher/supervisor/peer_table_fixture.h"
#include "support/temp_dir.h"

namespace peer_table_test {

using namespace pai::testing;
using pai::launcher::create_peer_table;
using pai::launcher::PeerTableReader;
using pai::launcher::TelemetryError;
using peer_table_fixture::link;
using peer_table_fixture::TableWriter;

namespace {

// Writes slot `i` of `table` for `peer` with figures derived from it.
void fill(const TableWriter& table, std::uint32_t i, int peer) {
  pai_telemetry_peer p = link(peer, PAI_TELEMETRY_PEER_SEND);
  p.bytes = 1000u * static_cast<unsigned>(peer);
  p.transfers = static_cast<unsigned>(peer);
  p.busy_ns = 7;
  p.in_flight = 1;
  p.busy_since_ns = 11;
  p.last_done_ns = 13;
  table.set(i, p);
}

// A file of `bytes` at `path` whose header is a table's of `slots`, changed by `change`.
template <typename Change>
void write_table_like(const std::string& path, std::uint64_t bytes, std::uint32_t slots,
                      Change change) {
  pai_telemetry_peers_header h;
  pai_telemetry_peers_header_init(&h, slots, 0);
  change(h);
  std::string content(reinterpret_cast<const char*>(&h), sizeof h);
  content.resize(static_cast<std::size_t>(bytes), '\0');
  spit(path, content);
}
void write_table_like(const std::string& path, std::uint64_t bytes, std::uint32_t slots) {
  write_table_like(path, bytes, slots, [](auto&) {});
}

std::string reader_error(const std::string& path) {
  try {
    PeerTableReader reader(path);
  } catch (const TelemetryError& e) {
    return e.what();
  }
  FAIL("no error reading " << path);
  return "";
}

std::string read_error(const PeerTableReader& reader) {
  try {
    reader.read();
  } catch (const TelemetryError& e) {
    return e.what();
  }
  FAIL("no error reading " << reader.path());
  return "";
}

}  // namespace

TEST_CASE("a new per-peer table is a sparse 0600 file with its header and no slot used") {
  TempDir dir;
  const std::string path = dir / "worker-0.rank-7.telemetry.peers";
  create_peer_table(path, 7);
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0600);
  CHECK(static_cast<std::uint64_t>(st.st_size) == 64 + 1024 * 64);
  CHECK(static_cast<std::uint64_t>(st.st_blocks) * 512 < static_cast<std::uint64_t>(st.st_size));
  const std::string bytes = slurp(path);
  CHECK(bytes.substr(0, 4) == "PAIP");
  pai_telemetry_peers_header h;
  std::memcpy(&h, bytes.data(), sizeof h);
  CHECK(h.version == 1);
  CHECK(h.slot_size == 64);
  CHECK(h.slots == 1024);
  CHECK(h.rank == 7);
  CHECK(bytes.substr(16) == std::string(bytes.size() - 16, '\0'));

  PeerTableReader reader(path);
  CHECK(reader.rank() == 7);
  CHECK(reader.slots() == 1024);
  CHECK(reader.writer_pid() == 0);
  const auto read = reader.read();
  CHECK(read.peers.empty());
  CHECK(read.torn == 0);
  CHECK(read.unplaced == 0);
  CHECK(read.dropped == 0);
}

TEST_CASE("the slots in use are read whole - a torn one is counted, never misread") {
  TempDir dir;
  const std::string path = dir / "t.peers";
  create_peer_table(path, 0, 4);
  TableWriter writer(path);
  PeerTableReader reader(path);
  fill(writer, 0, 5);
  fill(writer, 1, 9);
  // Slot 2 written, but `used` not yet raised: not in use.
  fill(writer, 2, 1);
  writer.header()->used = 2;
  writer.header()->unplaced = 3;
  writer.header()->dropped = 4;
  auto read = reader.read();
  REQUIRE(read.peers.size() == 2);
  CHECK(read.peers[1].peer == 9);
  CHECK(read.peers[1].bytes == 9000);
  CHECK(read.peers[1].transfers == 9);
  CHECK(read.peers[1].busy_ns == 7);
  CHECK(read.peers[1].busy_since_ns == 11);
  CHECK(read.peers[1].last_done_ns == 13);
  CHECK(read.peers[1].in_flight == 1);
  CHECK(read.unplaced == 3);
  CHECK(read.dropped == 4);

  pai_telemetry_peer_write_begin(writer.slot(0));  // being written, at every try
  read = reader.read();
  CHECK(read.torn == 1);
  REQUIRE(read.peers.size() == 1);
  CHECK(read.peers[0].peer == 9);
  pai_telemetry_peer_write_end(writer.slot(0));
  CHECK(reader.read().peers.size() == 2);

  writer.header()->used = 1000;  // beyond the slots: only those there are read
  fill(writer, 3, 2);
  CHECK(reader.read().peers.size() == 4);
}

TEST_CASE("a per-peer table that cannot be created is an error naming it, and leaves nothing") {
  TempDir dir;
  const std::string path = dir / "missing/t.peers";
  try {
    create_peer_table(path, 0);
    FAIL("no error");
  } catch (const TelemetryError& e) {
    CHECK(std::string(e.what()) ==
          "peer table " + path + ": cannot create: No such file or directory");
  }
  for (std::uint32_t slots : {0u, 4097u}) {
    try {
      create_peer_table(dir / "t.peers", 0, slots);
      FAIL("no error");
    } catch (const TelemetryError& e) {
      CHECK(std::string(e.what()) == "peer table " + (dir / "t.peers") + ": slot count " +
                                         std::to_string(slots) + " is not 1 to 4096");
    }
  }
  CHECK_FALSE(std::filesystem::exists(dir / "t.peers"));
}

TEST_CASE("files that are not per-peer tables give clear errors") {
  TempDir dir;
  const std::string path = dir / "bad.peers";
  const std::string prefix = "peer table " + path + ": ";

  CHECK(reader_error(path) == prefix + "cannot open: No such file or directory");
  std::filesystem::create_directory(path);
  CHECK(reader_error(path) == prefix + "not a regular file");
  std::filesystem::remove(path);
  spit(path, "PAIP");
  CHECK(reader_error(path) == prefix + "truncated: 4 bytes, shorter than its 64-byte header");
  write_table_like(path, 64 + 4 * 64, 4, [](auto& h) { h.magic = PAI_TELEMETRY_MAGIC; });
  CHECK(reader_error(path) == prefix + "not a peer table (bad magic)");
  write_table_like(path, 64 + 4 * 64, 4, [](auto& h) { h.version = 2; });
  CHECK(reader_error(path) == prefix + "version 2, this launcher reads version 1");
  write_table_like(path, 64 + 4 * 64, 4, [](auto& h) { h.slot_size = 32; });
  CHECK(reader_error(path) == prefix + "slot size 32, expected 64");
  write_table_like(path, 64, 0);
  CHECK(reader_error(path) == prefix + "slot count 0 is not 1 to 4096");
  write_table_like(path, 64 + 3 * 64, 4);
  CHECK(reader_error(path) == prefix + "256 bytes, but a table of 4 slots has 320");
  write_table_like(path, 64 + 5 * 64, 4);
  CHECK(reader_error(path) == prefix + "384 bytes, but a table of 4 slots has 320");

  write_table_like(path, 64 + 4 * 64, 4);
  CHECK_NOTHROW(PeerTableReader(path));
}

TEST_CASE("a table truncated or with another header while mapped is an error, not a fault") {
  TempDir dir;
  const std::string path = dir / "t.peers";
  create_peer_table(path, 3, 4);
  {
    PeerTableReader reader(path);
    TableWriter writer(path);
    writer.header()->slots = 2000;
    CHECK(read_error(reader) == "peer table " + path + ": header changed while mapped");
    writer.header()->slots = 4;
    writer.header()->magic = 0;
    CHECK(read_error(reader) == "peer table " + path + ": header changed while mapped");
  }
  create_peer_table(path, 3, 4);
  PeerTableReader reader(path);
  REQUIRE(::truncate(path.c_str(), 100) == 0);
  CHECK(read_error(reader) == "peer table " + path + ": truncated to 100 bytes while mapped");
}

// ---- the launcher ----

TEST_CASE(
    "each rank gets a per-peer table beside its ring, fresh per attempt, removed at the end") {
  TempDir dir;
  const std::string job = "sup-peer-table";
  const std::string out = dir.path();
  // Each rank reports its variable, the file's mode and the byte at offset 16 (writer_pid),
  // which it then sets; the first attempt fails (as NCCL does: retryable) once both have
  // reported.
  const std::string script =
      "f=$PAI_TELEMETRY_PEERS_FILE; o=" + out +
      "/rank-$RANK.attempt-$PAI_RESTART_COUNT; "
      "echo \"$f $(stat -c %a \"$f\") $(od -An -tu1 -j16 -N1 \"$f\")\" > $o.tmp && mv $o.tmp $o; "
      "printf '\\001' | dd of=\"$f\" bs=1 seek=16 conv=notrunc 2>/dev/null; "
      "if [ \"$PAI_RESTART_COUNT\" = 0 ]; then "
      "  while [ ! -e " +
      out + "/rank-0.attempt-0 ] || [ ! -e " + out +
      "/rank-1.attempt-0 ]; "
      "  do sleep 0.05; done; echo 'NCCL error: peer vanished'; exit 1; "
      "fi";
  auto plan = local_plan(job, script, 2);
  auto r = run_launcher(dir, {"run", "--plan", write_plan(dir, plan), "--node", "localhost",
                              "--log-dir", dir / "logs"});
  CHECK(r.code == 0);
  const std::string folder = "/tmp/pai/" + job + "/localhost";
  for (int rank = 0; rank < 2; ++rank) {
    const std::string expected =
        folder + "/worker-0.rank-" + std::to_string(rank) + ".telemetry.peers 600 0\n";
    for (int attempt = 0; attempt < 2; ++attempt) {
      INFO("rank " << rank << " attempt " << attempt);
      std::string line =
          slurp(dir / ("rank-" + std::to_string(rank) + ".attempt-" + std::to_string(attempt)));
      // od pads its figure with blanks.
      line.erase(std::unique(line.begin(), line.end(),
                             [](char a, char b) { return a == ' ' && b == ' '; }),
                 line.end());
      CHECK(line == expected);
    }
    CHECK_FALSE(std::filesystem::exists(folder + "/worker-0.rank-" + std::to_string(rank) +
                                        ".telemetry.peers"));
  }
  CHECK(leftover_processes(job).empty());
}

TEST_CASE("a per-peer table that cannot be created is warned about once - the ring is kept") {
  TempDir dir;
  const std::string job = "sup-peer-table-fail";
  const std::string folder = "/tmp/pai/" + job + "/localhost";
  if (::mkdir("/tmp/pai", 01777) == 0) ::chmod("/tmp/pai", 01777);  // as pai-launch makes it
  ::mkdir(("/tmp/pai/" + job).c_str(), 0700);
  ::mkdir(folder.c_str(), 0700);
  for (const char* name :
       {"/worker-0.rank-0.telemetry.peers", "/worker-0.rank-1.telemetry.peers"}) {
    std::filesystem::create_directory(folder + name);
  }
  auto plan = local_plan(job,
                         "echo \"peers=${PAI_TELEMETRY_PEERS_FILE-unset} "
                         "ring=${PAI_TELEMETRY_FILE:+set}\"",
                         2);
  auto r = run_launcher(dir, {"run", "--plan", write_plan(dir, plan), "--node", "localhost",
                              "--log-dir", dir / "logs"});
  std::filesystem::remove_all("/tmp/pai/" + job);
  CHECK(r.code == 0);
  CHECK(slurp(dir / "logs/worker-0/rank-0.attempt-0.log") == "peers=unset ring=set\n");
  CHECK(slurp(dir / "logs/worker-0/rank-1.attempt-0.log") == "peers=unset ring=set\n");
  CHECK(count_lines_with(r.err,
                         "warning: worker-0: ranks start without PAI_TELEMETRY_PEERS_FILE: "
                         "peer table " +
                             folder +
                             "/worker-0.rank-0.telemetry.peers: cannot remove: Is a "
                             "directory") == 1);
  CHECK(count_lines_with(r.err, "PAI_TELEMETRY_PEERS_FILE") == 1);
  CHECK(leftover_processes(job).empty());
}

}  // namespace peer_table_test
