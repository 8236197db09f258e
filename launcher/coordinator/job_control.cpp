#include "launcher/coordinator/job_control.h"

#include "launcher/coordinator/status_report.h"

namespace pai::launcher::coordinator {

void JobControl::request(int client, const net::MessageReader& message, JobRun* job,
                         Clock::time_point now) {
  const std::string& type = message.type();
  const std::string& who = state_.sessions.at(client).peer.node;
  if (type == "status") {
    state_.send(client, status_message(state_, job));
  } else if (type == "stop" || type == "start" || type == "kill") {
    const std::string instance = type == "kill" ? message.string("instance") : std::string();
    if (job == nullptr) {
      return reply(client, {false, "the job has not started yet: the rendezvous is not complete"});
    }
    if (type == "stop") return reply(client, job->pause(who, now));
    if (type == "start") return reply(client, job->resume(who, now));
    return reply(client, job->kill(instance, who));
  } else if (type == "run") {
    exec_.run(client, message);
  } else if (type == "rsh") {
    exec_.rsh(client, message);
  } else if (type == "exec-stdin") {
    exec_.client_stdin(client, message);
  } else if (type == "logs") {
    logs_.subscribe(client, message);
  } else if (type != "heartbeat") {
    message.fail("type", "not a control request");
  }
}

bool JobControl::relay(int session, const net::MessageReader& message) {
  const std::string& type = message.type();
  if (type == "exec-output") {
    exec_.output(session, message);
  } else if (type == "exec-exit") {
    exec_.exit(session, message);
  } else if (type == "log") {
    logs_.log(session, message);
  } else if (type == "log-end") {
    logs_.log_end(session);
  } else {
    return false;
  }
  return true;
}

void JobControl::session_closed(int session, const std::string& why) {
  exec_.session_closed(session, why);
  logs_.session_closed(session);
}

void JobControl::reply(int client, const ControlReply& answer) {
  state_.send(client, Json{{"type", answer.ok ? "ok" : "error"}, {"text", answer.text}});
}

}  // namespace pai::launcher::coordinator
