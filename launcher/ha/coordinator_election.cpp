#include "launcher/ha/coordinator_election.h"

namespace pai::launcher::ha {

std::string election_name(const std::string& job, const std::string& seal) {
  return "pai/jobs/" + job + "/" + seal.substr(0, 16) + "/coordinator";
}

CoordinatorElection::CoordinatorElection(ElectionOptions options)
    : options_(std::move(options)),
      name_(election_name(options_.job, options_.seal)),
      etcd_(std::make_unique<EtcdClient>(options_.etcd)),
      keeper_(std::make_unique<LeaseKeeper>(*etcd_, options_.lease)) {}

CoordinatorElection::~CoordinatorElection() {
  stopping_ = true;
  if (standing_.joinable()) standing_.join();
  keeper_.reset();  // revokes the lease: a lead passes on, a candidacy is withdrawn
}

std::optional<Leader> CoordinatorElection::lead(Clock::time_point deadline,
                                                const std::function<bool()>& cancel) {
  return etcd_->campaign(name_, keeper_->id(), options_.address, deadline, cancel);
}

std::optional<Leader> CoordinatorElection::leader() { return etcd_->leader(name_); }

void CoordinatorElection::stand_by(std::function<void(const Leader&)> on_lead,
                                   std::function<void(const std::string&)> on_error) {
  standing_ = std::thread([this, on_lead = std::move(on_lead), on_error = std::move(on_error)] {
    // One campaign for as long as it takes: withdrawn and asked again, a candidacy would go to
    // the back of the line. Without its lease it can never lead.
    const auto stop = [this] { return stopping_.load() || keeper_->lost(); };
    while (!stop()) {
      try {
        const auto led = etcd_->campaign(name_, keeper_->id(), options_.address,
                                         Clock::now() + std::chrono::hours(24), stop);
        if (led) {
          on_lead(*led);
          return;
        }
      } catch (const EtcdCancelled&) {
        return;
      } catch (const EtcdError& e) {
        if (on_error) on_error(e.what());
        const auto resume = Clock::now() + keeper_->ttl() / 2;
        while (!stop() && Clock::now() < resume) {
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
      }
    }
  });
}

}  // namespace pai::launcher::ha
