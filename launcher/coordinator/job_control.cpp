#include "launcher/coordinator/job_control.h"

#include <csignal>

#include "launcher/coordinator/status_report.h"

namespace pai::launcher::coordinator {

void JobControl::request(int client, const net::ControlRequest& message, JobRun* job,
                         Clock::time_point now) {
  const std::string who = state_.sessions.at(client).peer.node;
  // Pausing, resuming, killing and checkpoint requests need the job's run.
  auto with_job = [&](auto act) {
    if (job == nullptr) {
      return reply(client, {false, "the job has not started yet: the rendezvous is not complete"});
    }
    reply(client, act(*job));
  };
  std::visit(
      net::Overloaded{
          [&](const net::StatusRequest&) { state_.send(client, status_message(state_, job, now)); },
          [&](const net::PauseRequest&) {
            with_job([&](JobRun& run) { return run.pause(who, now); });
          },
          [&](const net::ResumeRequest&) {
            with_job([&](JobRun& run) { return run.resume(who, now); });
          },
          [&](const net::CancelRequest&) {
            // Before the rendezvous completed too: the launchers that joined are let go.
            reply(client, {true, "cancelling the job"});
            state_.cancel_job(128 + SIGTERM, who);
          },
          [&](const net::KillRequest& m) {
            with_job([&](JobRun& run) { return run.kill(m.instance, who); });
          },
          [&](const net::CheckpointNowRequest&) {
            with_job([&](JobRun& run) { return run.checkpoint_now(who); });
          },
          [&](const net::InjectRequest& m) {
            with_job([&](JobRun& run) { return run.inject(m, who); });
          },
          [&](const net::RunRequest& m) { exec_.run(client, m); },
          [&](const net::RshRequest& m) { exec_.rsh(client, m); },
          [&](const net::RshStdin& m) { exec_.client_stdin(client, m); },
          [&](const net::LogsRequest& m) { logs_.subscribe(client, m); },
          [&](const net::ClaimRequest& m) { reply(client, claims_.claim(m.identity, client)); },
          [&](const net::Heartbeat&) {},
      },
      message);
}

void JobControl::session_closed(int session, const std::string& why) {
  exec_.session_closed(session, why);
  logs_.session_closed(session);
}

void JobControl::reply(int client, const ControlAnswer& answer) {
  if (answer.ok) {
    state_.send(client, net::OkReply{answer.text});
  } else {
    state_.send(client, net::ErrorReply{answer.text});
  }
}

}  // namespace pai::launcher::coordinator
