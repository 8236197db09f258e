// The messages of the coordinator protocol (docs/protocol.md) as types: one struct per message
// kind and direction (node_messages.h, coordinator_messages.h, control_messages.h), one
// std::variant per direction, and their conversion to and from the JSON bodies of sealed
// frames.
// Each struct lists its wire fields once, in a table beside its members (libpai/fields.h; the
// options a field may have are in wire_fields.h): the JSON name, the bounds and the encoding
// of each, in the order receivers check them. protocol.cpp writes by the tables,
// protocol_parse.cpp reads by them; neither spells a field.
// Senders build a struct and convert it once; receivers parse a body into their direction's
// variant and dispatch with std::visit. Fields hold decoded values: `data` members carry raw
// bytes (base64 is the conversion's business), instance and rank numbers are ints.
//
// Every struct has `kType`, its "type" string, and compares equal member by member.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <variant>
#include <vector>

#include "launcher/net/control_messages.h"
#include "launcher/net/coordinator_messages.h"
#include "launcher/net/frame.h"
#include "launcher/net/node_messages.h"

namespace pai::net {

// ---- Conversion ----

/// The JSON body of a message: any struct above, or a direction's variant. The result's
/// dump() is what goes on the wire. Defined (explicitly instantiated) in protocol.cpp for
/// exactly these types.
template <class Message>
nlohmann::json to_json(const Message& message);

/// Parses a node launcher's message. `instances` is the plan's instance count: instance
/// numbers must lie in [0, instances - 1]. Throws ProtocolError "<type>: <field>: <what>" for
/// a missing, mistyped or out-of-range field (nested objects are named "exited.status",
/// "heartbeat.instances[0]"), "<type>: type: not a launcher message" for another type.
NodeToCoordinator parse_node_to_coordinator(const nlohmann::json& body, int instances);

/// Parses a coordinator's message to a node launcher; `instances` as above (for `assign`).
/// Throws ProtocolError as above; an unknown type: "<type>: type: unknown message type".
CoordinatorToNode parse_coordinator_to_node(const nlohmann::json& body, int instances);

/// Parses a control client's request. Throws ProtocolError as above; an unknown type:
/// "<type>: type: not a control request".
ControlRequest parse_control_request(const nlohmann::json& body);

/// Parses a coordinator's answer to a control client. Throws ProtocolError as above (a node
/// of `status` is named "status: nodes[1]"); an unknown type: `unexpected message "<type>"`.
ControlReply parse_control_reply(const nlohmann::json& body);

/// The `hosts` of `assign`. Throws ProtocolError "assign: hosts: ..." unless every entry is an
/// object with a non-negative integer instance, string name and address and integer slots.
std::vector<HostChange> parse_host_changes(const nlohmann::json& hosts);

/// A visitor made of lambdas, for std::visit over the variants above.
template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
/// Deduces Overloaded's lambdas.
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

/// The "type" of a message struct.
template <class Message>
constexpr const char* type_of(const Message&) {
  return Message::kType;
}

/// The "type" of the message a direction's variant holds.
template <class... Messages>
constexpr const char* type_of(const std::variant<Messages...>& message) {
  return std::visit([](const auto& m) { return type_of(m); }, message);
}

/// Throws ProtocolError "<type>: <field>: <what>" for a message that is well-formed but wrong
/// where it arrived (e.g. a report for another node's instance).
template <class Message>
[[noreturn]] void fail(const Message& message, const char* field, const std::string& what) {
  throw field_error(type_of(message), field, what);
}

}  // namespace pai::net
