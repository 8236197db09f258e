// OpenPAI names -> pai names.
//
// OpenPAI accepts job and task role names of letters, digits, '_', '-', '.' and '~'; pai
// needs a DNS label for the job (it becomes a hostname, a Kubernetes name, a file name) and
// a name usable in env var names for each role. These functions make the nearest pai name.
#pragma once

#include <string>

namespace pai {

/// `name` as a DNS label: lowercased, every character other than a letter, a digit or '-'
/// replaced by '-', leading and trailing '-' removed, cut to 47 characters (a DNS label's 63
/// less room for the pods' "-worker-<index>" suffix). Empty when nothing is left.
std::string openpai_job_label(const std::string& name);

/// `name` as a pai role name: '-', '.' and '~' replaced by '_'. The result is not checked:
/// the spec parser reports a name that still is no role name (a leading digit, over 32
/// characters).
std::string openpai_role_name(const std::string& name);

}  // namespace pai
