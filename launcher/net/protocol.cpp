#include "launcher/net/protocol.h"

#include <nlohmann/json.hpp>
#include <type_traits>
#include <utility>

#include "launcher/net/message.h"

// Writing: every message's fields as its table (node_messages.h, coordinator_messages.h,
// control_messages.h) lists them; protocol_parse.cpp reads them by the same tables.
// nlohmann's objects keep their keys sorted, so the bytes do not depend on the tables' order.

namespace pai::net {
namespace {

using Json = nlohmann::json;

template <class T>
struct IsVariant : std::false_type {};
template <class... T>
struct IsVariant<std::variant<T...>> : std::true_type {};

template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};

// A visitor of the tables (libpai/fields.h) that sets the members of one JSON object.
class Writer {
 public:
  explicit Writer(Json& object) : object_(object) {}

  template <class T, class... Options>
  void operator()(const char* key, const T& member, const Options&... options) {
    if (!field::written(options...)) return;
    if constexpr (IsOptional<T>::value) {
      if (!member) return;
      object_[key] = encode(*member, options...);
    } else {
      object_[key] = encode(member, options...);
    }
  }

  // The NCCL engine's fields of fabric-listen and fabric-connect, flat beside the others.
  void operator()(const char*, const std::optional<FabricNccl>& nccl, const NcclFields&) {
    if (!nccl) return;
    object_["ncclRanks"] = nccl->ranks;
    object_["ncclFirstRank"] = nccl->first_rank;
    if (!nccl->unique_id.empty()) object_["ncclId"] = base64_encode(nccl->unique_id);
  }

  template <class Problem>
  void check(const char*, const Problem&) {}

  template <class Fn>
  void read_if(bool, const Fn& fn) {
    fn(*this);
  }

 private:
  template <class T, class... Options>
  static Json encode(const T& value, const Options&...) {
    if constexpr (field::has<Base64, Options...>) {
      return base64_encode(value);
    } else if constexpr (field::has<JsonArrayText, Options...>) {
      return Json::parse(value);
    } else if constexpr (NamedEnum<T>) {
      return to_string(value);
    } else if constexpr (HasFields<T>) {
      return object_of(value);
    } else if constexpr (ListOfFields<T>) {
      Json list = Json::array();
      for (const auto& item : value) list.push_back(object_of(item));
      return list;
    } else {
      return value;
    }
  }

  template <class T>
  static Json object_of(const T& value) {
    Json object = Json::object();
    Writer writer(object);
    fields(writer, value);
    return object;
  }

  Json& object_;
};

}  // namespace

const char* to_string(Stream stream) { return pai::to_string(stream); }

template <class Message>
Json to_json(const Message& message) {
  if constexpr (IsVariant<Message>::value) {
    return std::visit([](const auto& m) { return to_json(m); }, message);
  } else {
    Json body = Json::object();
    if constexpr (HasFields<Message>) {
      Writer writer(body);
      fields(writer, message);
    }
    body["type"] = Message::kType;
    return body;
  }
}

// to_json exists for exactly the messages of protocol.h and their variants.
template Json to_json(const Heartbeat&);
template Json to_json(const Log&);
template Json to_json(const Join&);
template Json to_json(const Checks&);
template Json to_json(const Exited&);
template Json to_json(const Stopped&);
template Json to_json(const Checkpointed&);
template Json to_json(const Hang&);
template Json to_json(const NodeHeartbeat&);
template Json to_json(const Failure&);
template Json to_json(const Forensics&);
template Json to_json(const ExecOutput&);
template Json to_json(const ExecExit&);
template Json to_json(const LogEnd&);
template Json to_json(const Cancel&);
template Json to_json(const NodeFailed&);
template Json to_json(const FabricListening&);
template Json to_json(const FabricResult&);
template Json to_json(const NodeToCoordinator&);
template Json to_json(const Progress&);
template Json to_json(const Assign&);
template Json to_json(const Standby&);
template Json to_json(const RunChecks&);
template Json to_json(const Start&);
template Json to_json(const Stop&);
template Json to_json(const Kill&);
template Json to_json(const Finish&);
template Json to_json(const Exec&);
template Json to_json(const ExecStdin&);
template Json to_json(const ExecKill&);
template Json to_json(const SubscribeLogs&);
template Json to_json(const UnsubscribeLogs&);
template Json to_json(const FabricListen&);
template Json to_json(const FabricConnect&);
template Json to_json(const CheckpointAdvice&);
template Json to_json(const Inject&);
template Json to_json(const CoordinatorToNode&);
template Json to_json(const StatusRequest&);
template Json to_json(const PauseRequest&);
template Json to_json(const ResumeRequest&);
template Json to_json(const CancelRequest&);
template Json to_json(const KillRequest&);
template Json to_json(const RunRequest&);
template Json to_json(const RshRequest&);
template Json to_json(const RshStdin&);
template Json to_json(const LogsRequest&);
template Json to_json(const ClaimRequest&);
template Json to_json(const CheckpointNowRequest&);
template Json to_json(const InjectRequest&);
template Json to_json(const ControlRequest&);
template Json to_json(const StatusReply&);
template Json to_json(const OkReply&);
template Json to_json(const ErrorReply&);
template Json to_json(const NodeExecOutput&);
template Json to_json(const NodeExecExit&);
template Json to_json(const Done&);
template Json to_json(const ControlReply&);

}  // namespace pai::net
