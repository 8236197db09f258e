// The telemetry ring: the file the launcher creates, records a C++ and a Python writer append,
// and what the reader makes of laps, torn records and files that are not rings.
#include "launcher/supervisor/telemetry_ring.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "launcher/launcher_harness.h"
#include "support/temp_dir.h"
#include "support/writable_mapping.h"

namespace telemetry_ring_test {

using namespace pai::testing;
using pai::launcher::create_telemetry_ring;
using pai::launcher::TelemetryError;
using pai::launcher::TelemetryReader;

namespace {

// The ring at `path` mapped writable and shared, as a rank maps it.
class WriterMapping {
 public:
  explicit WriterMapping(const std::string& path) : mapping_(path) {}

  void* base() const { return mapping_.base(); }

  // Appends a collective_enter record whose step is `step` and whose other fields derive
  // from it, so that a reader can check every field.
  void append(std::int64_t step) const {
    pai_telemetry_record r{};
    r.time_ns = 1000 + static_cast<std::uint64_t>(step);
    r.kind = PAI_TELEMETRY_COLLECTIVE_ENTER;
    r.op = PAI_TELEMETRY_OP_ALL_REDUCE;
    r.group = 3;
    r.step = step;
    r.collective_seq = static_cast<std::uint64_t>(step) * 2;
    r.bytes = static_cast<std::uint64_t>(step) * 4096;
    pai_telemetry_append(base(), &r);
  }

 private:
  WritableMapping mapping_;
};

std::vector<std::int64_t> steps_of(const std::vector<pai_telemetry_record>& records) {
  std::vector<std::int64_t> out;
  for (const auto& r : records) out.push_back(r.step);
  return out;
}

// A file of `bytes` at `path` whose header says `capacity`, `version` and `record_size`.
void write_ring_like(const std::string& path, std::uint64_t bytes, std::uint32_t capacity,
                     std::uint32_t magic = PAI_TELEMETRY_MAGIC, std::uint16_t version = 1,
                     std::uint16_t record_size = 64) {
  pai_telemetry_header h;
  pai_telemetry_header_init(&h, capacity, 0);
  h.magic = magic;
  h.version = version;
  h.record_size = record_size;
  std::string content(reinterpret_cast<const char*>(&h), sizeof h);
  content.resize(static_cast<std::size_t>(bytes), '\0');
  spit(path, content);
}

std::string reader_error(const std::string& path) {
  try {
    TelemetryReader reader(path);
  } catch (const TelemetryError& e) {
    return e.what();
  }
  FAIL("no error reading " << path);
  return "";
}

}  // namespace

TEST_CASE("a new ring is a sparse 0600 file with its header and no records") {
  TempDir dir;
  const std::string path = dir / "worker-0.rank-7.telemetry";
  create_telemetry_ring(path, 7);
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0600);
  CHECK(S_ISREG(st.st_mode));
  CHECK(static_cast<std::uint64_t>(st.st_size) == 128 + 1024 * 64);
  CHECK(static_cast<std::uint64_t>(st.st_blocks) * 512 < static_cast<std::uint64_t>(st.st_size));
  const std::string bytes = slurp(path);
  CHECK(bytes.substr(0, 4) == "PAIT");
  pai_telemetry_header h;
  std::memcpy(&h, bytes.data(), sizeof h);
  CHECK(h.version == 1);
  CHECK(h.record_size == 64);
  CHECK(h.capacity == 1024);
  CHECK(h.rank == 7);
  CHECK(h.writer_pid == 0);
  CHECK(bytes.substr(20) == std::string(bytes.size() - 20, '\0'));

  TelemetryReader reader(path);
  CHECK(reader.rank() == 7);
  CHECK(reader.capacity() == 1024);
  CHECK(reader.writer_pid() == 0);
  CHECK(reader.written() == 0);
  const auto poll = reader.poll();
  CHECK(poll.records.empty());
  CHECK(poll.lost == 0);
}

TEST_CASE("records of a C++ writer are read in order, each once, every field intact") {
  TempDir dir;
  const std::string path = dir / "r.telemetry";
  create_telemetry_ring(path, 0, 16);
  WriterMapping writer(path);
  TelemetryReader reader(path);
  for (int step = 0; step < 10; ++step) writer.append(step);
  auto poll = reader.poll();
  CHECK(poll.lost == 0);
  CHECK(steps_of(poll.records) == std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  const pai_telemetry_record& r = poll.records.at(9);
  CHECK(r.seq == 10);
  CHECK(r.time_ns == 1009);
  CHECK(r.kind == PAI_TELEMETRY_COLLECTIVE_ENTER);
  CHECK(r.op == PAI_TELEMETRY_OP_ALL_REDUCE);
  CHECK(r.group == 3);
  CHECK(r.collective_seq == 18);
  CHECK(r.bytes == 9 * 4096);

  CHECK(reader.poll().records.empty());
  for (int step = 10; step < 14; ++step) writer.append(step);  // wraps around slot 15
  poll = reader.poll();
  CHECK(poll.lost == 0);
  CHECK(steps_of(poll.records) == std::vector<std::int64_t>{10, 11, 12, 13});
  CHECK(reader.written() == 14);
  CHECK(reader.next() == 14);
}

TEST_CASE("a reader the writer lapped reports the lost records and returns the rest") {
  TempDir dir;
  const std::string path = dir / "r.telemetry";
  create_telemetry_ring(path, 0, 8);
  WriterMapping writer(path);
  TelemetryReader reader(path);
  writer.append(0);
  CHECK(reader.poll().records.size() == 1);
  for (int step = 1; step <= 20; ++step) writer.append(step);
  const auto poll = reader.poll();
  CHECK(poll.lost == 12);
  CHECK(steps_of(poll.records) == std::vector<std::int64_t>{13, 14, 15, 16, 17, 18, 19, 20});
  CHECK(poll.records.front().seq == 14);
}

TEST_CASE("a torn or overwritten record is skipped and counted lost, never misread") {
  TempDir dir;
  const std::string path = dir / "r.telemetry";
  create_telemetry_ring(path, 0, 8);
  WriterMapping writer(path);
  TelemetryReader reader(path);
  for (int step = 0; step < 5; ++step) writer.append(step);
  // Record 2 being rewritten (seq 0), record 3 already holding record 11's seq.
  pai_telemetry_slot(writer.base(), 2)->seq = 0;
  pai_telemetry_slot(writer.base(), 3)->seq = 12;
  const auto poll = reader.poll();
  CHECK(poll.lost == 2);
  CHECK(steps_of(poll.records) == std::vector<std::int64_t>{0, 1, 4});
}

TEST_CASE("a new ring at the same path leaves the old file to whoever still maps it") {
  TempDir dir;
  const std::string path = dir / "r.telemetry";
  create_telemetry_ring(path, 0, 8);
  WriterMapping old_attempt(path);
  old_attempt.append(1);
  create_telemetry_ring(path, 0, 8);
  old_attempt.append(2);
  TelemetryReader reader(path);
  CHECK(reader.written() == 0);
  CHECK(reader.poll().records.empty());
}

TEST_CASE("the drill's hold is the header's word at offset 24 - set, cleared, nothing else moved") {
  TempDir dir;
  const std::string path = dir / "r.telemetry";
  create_telemetry_ring(path, 3, 8);
  WriterMapping writer(path);
  writer.append(1);
  const std::string before = slurp(path);
  const auto* header = static_cast<const pai_telemetry_header*>(writer.base());
  pai::launcher::set_drill_hold(path, 0x0102030405060708ull);
  CHECK(header->drill_until_ns == 0x0102030405060708ull);  // seen through the rank's mapping
  std::string after = slurp(path);
  CHECK(after.substr(24, 8) == std::string("\x08\x07\x06\x05\x04\x03\x02\x01", 8));
  after.replace(24, 8, std::string(8, '\0'));
  CHECK(after == before);
  pai::launcher::set_drill_hold(path, 0);
  CHECK(header->drill_until_ns == 0);
  CHECK(slurp(path) == before);
  TelemetryReader reader(path);
  CHECK(reader.poll().records.size() == 1);
}

TEST_CASE("a drill's hold on a ring that is gone or not a file is an error naming it") {
  TempDir dir;
  const std::string path = dir / "r.telemetry";
  const std::string prefix = "telemetry ring " + path + ": ";
  const auto error = [&] {
    try {
      pai::launcher::set_drill_hold(path, 1);
    } catch (const TelemetryError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error() == prefix + "cannot open: No such file or directory");
  spit(path, "PAIT");
  CHECK(error() == prefix + "too short: 4 bytes");
  CHECK(slurp(path) == "PAIT");
  std::filesystem::remove(path);
  REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
  CHECK(error().starts_with(prefix + "cannot open: "));  // ENXIO: no reader; never waits
  std::filesystem::remove(path);
  std::filesystem::create_directory(path);
  CHECK(error().starts_with(prefix + "cannot open: "));  // EISDIR
}

TEST_CASE("a ring that cannot be created is an error naming it, and leaves nothing") {
  TempDir dir;
  const std::string path = dir / "missing/r.telemetry";
  try {
    create_telemetry_ring(path, 0);
    FAIL("no error");
  } catch (const TelemetryError& e) {
    CHECK(std::string(e.what()) ==
          "telemetry ring " + path + ": cannot create: No such file or directory");
  }
  try {
    create_telemetry_ring(dir / "r.telemetry", 0, 1000);
    FAIL("no error");
  } catch (const TelemetryError& e) {
    CHECK(std::string(e.what()) == "telemetry ring " + (dir / "r.telemetry") +
                                       ": capacity 1000 is not a power of two up to 1048576");
  }
  CHECK_FALSE(std::filesystem::exists(dir / "r.telemetry"));
}

TEST_CASE("files that are not rings give clear errors") {
  TempDir dir;
  const std::string path = dir / "bad.telemetry";
  const std::string prefix = "telemetry ring " + path + ": ";

  CHECK(reader_error(path) == prefix + "cannot open: No such file or directory");
  std::filesystem::create_directory(path);
  CHECK(reader_error(path) == prefix + "not a regular file");
  std::filesystem::remove(path);

  spit(path, "PAIT");
  CHECK(reader_error(path) == prefix + "truncated: 4 bytes, shorter than its 128-byte header");
  write_ring_like(path, 128 + 8 * 64, 8, 0x464c457f);
  CHECK(reader_error(path) == prefix + "not a telemetry ring (bad magic)");
  write_ring_like(path, 128 + 8 * 64, 8, PAI_TELEMETRY_MAGIC, 2);
  CHECK(reader_error(path) == prefix + "version 2, this launcher reads version 1");
  write_ring_like(path, 128 + 8 * 64, 8, PAI_TELEMETRY_MAGIC, 1, 32);
  CHECK(reader_error(path) == prefix + "record size 32, expected 64");
  write_ring_like(path, 128 + 8 * 64, 0x80000000u);
  CHECK(reader_error(path) == prefix + "capacity 2147483648 is not a power of two up to 1048576");
  write_ring_like(path, 128 + 8 * 64, 0);
  CHECK(reader_error(path) == prefix + "capacity 0 is not a power of two up to 1048576");
  write_ring_like(path, 128 + 6 * 64, 6);
  CHECK(reader_error(path) == prefix + "capacity 6 is not a power of two up to 1048576");
  write_ring_like(path, 128 + 7 * 64, 8);  // truncated records
  CHECK(reader_error(path) == prefix + "576 bytes, but a ring of 8 records has 640");
  write_ring_like(path, 128 + 9 * 64, 8);
  CHECK(reader_error(path) == prefix + "704 bytes, but a ring of 8 records has 640");

  write_ring_like(path, 128 + 8 * 64, 8);
  CHECK_NOTHROW(TelemetryReader(path));
}

TEST_CASE("a ring truncated while mapped is an error at the next poll, not a fault") {
  TempDir dir;
  const std::string path = dir / "r.telemetry";
  create_telemetry_ring(path, 0, 8);
  TelemetryReader reader(path);
  REQUIRE(::truncate(path.c_str(), 100) == 0);
  try {
    reader.poll();
    FAIL("no error");
  } catch (const TelemetryError& e) {
    CHECK(std::string(e.what()) ==
          "telemetry ring " + path + ": truncated to 100 bytes while mapped");
  }
}

// ---- the launcher ----

namespace {

std::vector<std::string> run_args(const TempDir& dir, const std::string& plan) {
  return {"run", "--plan", plan, "--node", "localhost", "--log-dir", dir / "logs"};
}

// Control folder of job `name`'s node localhost under the default control root.
std::string control_dir(const std::string& name) {
  return std::string("/tmp/pai/") + name + "/localhost";
}

// The shell command of a rank running `script` with /usr/bin/python3 and the SDK of this tree.
std::string python(const std::string& script, const std::string& args = "") {
  return "PYTHONPATH=" PAI_SOURCE_DIR "/sdk/python exec /usr/bin/python3 " + script + " " + args;
}

}  // namespace

TEST_CASE(
    "each rank gets its own ring in the control folder - a Python writer's records are read "
    "back exactly") {
  TempDir dir;
  spit(dir / "writer.py",
       "import os, sys, time\n"
       "from pai import telemetry\n"
       "out = sys.argv[1]\n"
       "rank = int(os.environ['RANK'])\n"
       "r = telemetry.ring()\n"
       "r.step_begin(100 + rank)\n"
       "r.collective_enter('all_reduce', 0, 1, 4096 * (rank + 1), 100 + rank)\n"
       "r.collective_exit(telemetry.ALL_REDUCE, 0, 1, 4096 * (rank + 1), 100 + rank)\n"
       "r.collective_enter('broadcast', 2, 7, 12, r.step)\n"
       "r.step_end(100 + rank)\n"
       "ready = '%s/rank-%d' % (out, rank)\n"
       "with open(ready + '.tmp', 'w') as f:\n"
       "    f.write('%s %d' % (os.environ['PAI_TELEMETRY_FILE'], os.getpid()))\n"
       "os.rename(ready + '.tmp', ready + '.ready')\n"
       "while not os.path.exists(out + '/done'):\n"
       "    time.sleep(0.02)\n");
  const std::string job = "sup-telemetry";
  auto plan = local_plan(job, python(dir / "writer.py", dir.path()), 2);
  Launcher launcher(dir, run_args(dir, write_plan(dir, plan)));

  for (int rank = 0; rank < 2; ++rank) {
    INFO("rank " << rank);
    const std::string ready = dir / ("rank-" + std::to_string(rank) + ".ready");
    REQUIRE(wait_for_file(ready, 20));
    std::istringstream in(slurp(ready));
    std::string path;
    int pid = 0;
    in >> path >> pid;
    CHECK(path == control_dir(job) + "/worker-0.rank-" + std::to_string(rank) + ".telemetry");
    struct stat st {};
    REQUIRE(::lstat(path.c_str(), &st) == 0);
    CHECK(S_ISREG(st.st_mode));
    CHECK((st.st_mode & 07777) == 0600);

    TelemetryReader reader(path);
    CHECK(reader.rank() == rank);
    CHECK(reader.writer_pid() == pid);
    const auto poll = reader.poll();
    CHECK(poll.lost == 0);
    REQUIRE(poll.records.size() == 5);
    const std::int64_t step = 100 + rank;
    const std::uint64_t bytes = 4096 * static_cast<std::uint64_t>(rank + 1);
    struct Expected {
      std::uint16_t kind, op;
      std::uint32_t group;
      std::uint64_t seq, bytes;
    };
    const Expected expected[] = {
        {PAI_TELEMETRY_STEP_BEGIN, PAI_TELEMETRY_OP_NONE, 0, 0, 0},
        {PAI_TELEMETRY_COLLECTIVE_ENTER, PAI_TELEMETRY_OP_ALL_REDUCE, 0, 1, bytes},
        {PAI_TELEMETRY_COLLECTIVE_EXIT, PAI_TELEMETRY_OP_ALL_REDUCE, 0, 1, bytes},
        {PAI_TELEMETRY_COLLECTIVE_ENTER, PAI_TELEMETRY_OP_BROADCAST, 2, 7, 12},
        {PAI_TELEMETRY_STEP_END, PAI_TELEMETRY_OP_NONE, 0, 0, 0},
    };
    std::uint64_t previous_time = 0;
    for (std::size_t i = 0; i < 5; ++i) {
      INFO("record " << i);
      const pai_telemetry_record& r = poll.records[i];
      CHECK(r.seq == i + 1);
      CHECK(r.kind == expected[i].kind);
      CHECK(r.op == expected[i].op);
      CHECK(r.group == expected[i].group);
      CHECK(r.step == step);
      CHECK(r.collective_seq == expected[i].seq);
      CHECK(r.bytes == expected[i].bytes);
      CHECK(r.time_ns >= previous_time);
      previous_time = r.time_ns;
    }
  }
  spit(dir / "done", "");
  CHECK(launcher.wait() == 0);
  CHECK_FALSE(std::filesystem::exists(control_dir(job) + "/worker-0.rank-0.telemetry"));
  CHECK_FALSE(std::filesystem::exists(control_dir(job) + "/worker-0.rank-1.telemetry"));
  CHECK(leftover_processes(job).empty());
}

TEST_CASE("every attempt gets a fresh ring") {
  TempDir dir;
  spit(dir / "attempt.py",
       "import os\n"
       "from pai import telemetry\n"
       "r = telemetry.ring()\n"
       "print('written', r.written, 'rank', r.rank)\n"
       "r.step_begin(1)\n"
       "if os.environ['PAI_RESTART_COUNT'] == '0':\n"
       "    print('NCCL error: peer vanished', flush=True)\n"
       "    raise SystemExit(1)\n");
  auto plan = local_plan("sup-telemetry-fresh", python(dir / "attempt.py"));
  auto r = run_launcher(dir, run_args(dir, write_plan(dir, plan)));
  CHECK(r.code == 0);
  CHECK(slurp(dir / "logs/worker-0/rank-0.attempt-0.log") ==
        "written 0 rank 0\nNCCL error: peer vanished\n");
  CHECK(slurp(dir / "logs/worker-0/rank-0.attempt-1.log") == "written 0 rank 0\n");
  CHECK(leftover_processes("sup-telemetry-fresh").empty());
}

TEST_CASE("a ring that cannot be created is warned about once - the ranks start without it") {
  TempDir dir;
  const std::string job = "sup-telemetry-fail";
  const std::string folder = control_dir(job);
  if (::mkdir("/tmp/pai", 01777) == 0) ::chmod("/tmp/pai", 01777);  // as pai-launch makes it
  ::mkdir(("/tmp/pai/" + job).c_str(), 0700);
  ::mkdir(folder.c_str(), 0700);
  // Directories where the rings go: they cannot be removed to make room.
  for (const char* name : {"/worker-0.rank-0.telemetry", "/worker-0.rank-1.telemetry"}) {
    std::filesystem::create_directory(folder + name);
  }
  auto plan = local_plan(job,
                         "echo \"ring=${PAI_TELEMETRY_FILE-unset}\"; "
                         "if [ \"$PAI_RESTART_COUNT\" = 0 ]; then echo 'NCCL error: x'; exit 1; fi",
                         2);
  auto r = run_launcher(dir, run_args(dir, write_plan(dir, plan)));
  std::filesystem::remove_all("/tmp/pai/" + job);
  CHECK(r.code == 0);
  // The second attempt ran both ranks to the end (in the first, a rank may be stopped before
  // it prints: the other one's failure restarts the instance).
  CHECK(slurp(dir / "logs/worker-0/rank-0.attempt-1.log") == "ring=unset\n");
  CHECK(slurp(dir / "logs/worker-0/rank-1.attempt-1.log") == "ring=unset\n");
  CHECK(count_lines_with(r.err,
                         "warning: worker-0: ranks start without PAI_TELEMETRY_FILE: "
                         "telemetry ring " +
                             folder +
                             "/worker-0.rank-0.telemetry: cannot remove: Is a directory") == 1);
  CHECK(count_lines_with(r.err, "PAI_TELEMETRY_FILE") == 1);
  CHECK(leftover_processes(job).empty());
}

}  // namespace telemetry_ring_test
