#include "compiler/plan/framework_launch.h"

#include <algorithm>
#include <cmath>

#include "libpai/framework_env.h"

namespace pai {
namespace {

// The shell that runs a shape's script; "$0" is the name in `ps` and in sh's own messages.
std::vector<std::string> shell(const std::string& script, const std::string& name,
                               const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"/bin/sh", "-c", script, name};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

void add_port(Role& role, const std::string& label) {
  const bool given = std::any_of(role.ports.begin(), role.ports.end(),
                                 [&](const PortRequest& p) { return p.label == label; });
  if (given) return;
  role.ports.push_back(PortRequest{label, 1});
  std::sort(role.ports.begin(), role.ports.end(),
            [](const PortRequest& a, const PortRequest& b) { return a.label < b.label; });
}

// `ray start`'s share of the node: the role's GPUs always (else Ray takes every GPU it
// sees), its CPUs when stated (whole ones; else Ray counts them).
std::string ray_resources(const Role& role) {
  std::string flags = " --num-gpus=" + std::to_string(role.resources.gpu);
  if (role.resources.cpu > 0) {
    const long cpus = std::max(1L, static_cast<long>(std::floor(role.resources.cpu)));
    flags += " --num-cpus=" + std::to_string(cpus);
  }
  return flags;
}

// Polls the head with `ray health-check` once a second; `on_timeout` runs after `seconds`.
std::string wait_for_head(int seconds, const std::string& while_waiting,
                          const std::string& on_timeout) {
  return "waited=0\n"
         "until ray health-check --address \"$RAY_ADDRESS\" >/dev/null 2>&1; do\n" +
         while_waiting +
         "  waited=$((waited + 1))\n"
         "  if [ \"$waited\" -gt " +
         std::to_string(seconds) +
         " ]; then\n"
         "    echo \"pai: the Ray head at $RAY_ADDRESS did not answer within " +
         std::to_string(seconds) + " s\" >&2\n" + on_timeout +
         "    exit 1\n"
         "  fi\n"
         "  sleep 1\n"
         "done\n";
}

std::vector<std::string> ray_head(const Role& role, const RaySpec& ray) {
  const std::string dashboard =
      ray.submit ? " --include-dashboard=true --dashboard-host=0.0.0.0"
                   " --dashboard-port=\"$PAI_CONTAINER_HOST_dashboard_PORT_LIST\""
                 : "";
  const std::string entrypoint = ray.submit
                                     ? "ray job submit --address \"http://127.0.0.1:"
                                       "$PAI_CONTAINER_HOST_dashboard_PORT_LIST\" -- \"$@\"\n"
                                     : "\"$@\"\n";
  const std::string script =
      "ray start --head --node-ip-address=\"$PAI_CONTAINER_HOST_IP\" "
      "--port=\"${RAY_ADDRESS##*:}\"" +
      ray_resources(role) + dashboard +
      " --disable-usage-stats --block &\n"
      "head=$!\n" +
      wait_for_head(300,
                    "  if ! kill -0 \"$head\" 2>/dev/null; then\n"
                    "    echo \"pai: ray start --head ended before the head answered\" >&2\n"
                    "    exit 1\n"
                    "  fi\n",
                    "    kill \"$head\"\n") +
      entrypoint +
      "code=$?\n"
      "ray stop >/dev/null 2>&1\n"
      "wait \"$head\"\n"
      "exit \"$code\"\n";
  return shell(script, "pai-ray-head", role.command);
}

std::vector<std::string> ray_worker(const Role& role) {
  const std::string script =
      wait_for_head(600, "", "") +
      "exec ray start --address=\"$RAY_ADDRESS\" --node-ip-address=\"$PAI_CONTAINER_HOST_IP\"" +
      ray_resources(role) + " --disable-usage-stats --block\n";
  return shell(script, "pai-ray-worker", {});
}

// The Rabit tracker of XGBoost 1.x and 2.x (keyword arguments both accept). Its listening
// socket reuses the address, so that a restarted job binds the port its killed tracker left
// in TIME_WAIT.
constexpr const char* kTracker =
    "import socket, sys\n"
    "class ReusingSocket(socket.socket):\n"
    "    def __init__(self, *args, **kwargs):\n"
    "        super().__init__(*args, **kwargs)\n"
    "        self.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
    "socket.socket = ReusingSocket\n"
    "from xgboost.tracker import RabitTracker\n"
    "host, workers, port = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])\n"
    "tracker = RabitTracker(host_ip=host, n_workers=workers, port=port, sortby=\"task\")\n"
    "if hasattr(tracker, \"wait_for\"):\n"
    "    tracker.start()\n"
    "    tracker.wait_for()\n"
    "else:\n"
    "    tracker.start(workers)\n"
    "    tracker.join()\n";

std::vector<std::string> xgboost_tracker(const Role& role) {
  const std::string script =
      "if [ \"$DMLC_TASK_ID\" = 0 ]; then\n"
      "  python3 -c '" +
      std::string(kTracker) +
      "' \"$DMLC_TRACKER_URI\" \"$DMLC_NUM_WORKER\" \"$DMLC_TRACKER_PORT\" &\n"
      "fi\n"
      "exec \"$@\"\n";
  return shell(script, "pai-xgboost", role.command);
}

}  // namespace

void add_framework_needs(Plan& plan, const RaySpec& ray) {
  for (Role& role : plan.roles) {
    if (role.name != plan.master_role) continue;
    if (const std::string label = framework_port_label(plan.framework); !label.empty()) {
      add_port(role, label);
    }
    if (plan.framework == Framework::Ray) {
      if (ray.submit) add_port(role, "dashboard");
      role.completion.min_succeeded = 1;
    }
  }
}

std::vector<std::string> framework_command(const Plan& plan, const Role& role, const RaySpec& ray) {
  const bool master = role.name == plan.master_role;
  if (plan.framework == Framework::Ray) return master ? ray_head(role, ray) : ray_worker(role);
  if (plan.framework == Framework::XGBoost && master) return xgboost_tracker(role);
  return role.command;
}

}  // namespace pai
