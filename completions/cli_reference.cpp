// pai-cli-reference: writes the shell completions and the man pages' option lists of pai's
// programs from what the built programs say about themselves (their CLI11 --help), so that
// neither can name an option a program lacks or miss one it has. The build runs it on the
// built programs (completions/CMakeLists.txt); `cmake --install` installs what it wrote.
//
//   pai-cli-reference bash|zsh PROGRAM NAME OUT          completion script for NAME
//   pai-cli-reference man PROGRAM NAME TEMPLATE OUT      TEMPLATE with its line @OPTIONS@
//                                                         replaced by OPTIONS (and COMMANDS)
//                                                         sections, @VERSION@ by the version
// PROGRAM is the path of the built program; its subcommands' help is asked for too.
// Exit status: 0 written; 1 a program could not be run or its help not read; 2 usage.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace pai::cli_reference {
namespace {

// One option or positional as the completions and the man page need it.
struct Option {
  std::vector<std::string> names;  // "-o", "--out"; empty for a positional
  std::string positional;          // the positional's name
  std::string type;                // CLI11's type name without its choices: TEXT, INT, ...
  std::vector<std::string> choices;
  std::string description;
  bool takes_value = false;
  bool path = false;  // the value is a file or folder name
};

// A (sub)command: its options and positionals, and its subcommands.
struct Command {
  std::string name;
  std::string description;
  std::vector<Option> options;
  std::vector<Option> positionals;
  std::vector<Command> subcommands;
};

// `text` as one shell word.
std::string single_quoted(const std::string& text);

// The output of `command` (a shell command line); throws when it cannot be run.
std::string output_of(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("cannot run " + command);
  std::string out;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  const int status = pclose(pipe);
  if (status != 0)
    throw std::runtime_error(command + " failed (status " + std::to_string(status) + ")");
  return out;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::string trimmed(const std::string& text) {
  const std::size_t first = text.find_first_not_of(' ');
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(' ') - first + 1);
}

// CLI11 (2.x) prints each entry as "  NAME-PART" padded to column 30, then the description;
// a longer name part has its description on the next line, indented 30.
constexpr std::size_t kColumn = 30;

struct Entry {
  std::string name_part;
  std::string description;
};

// The entries of the help section `title` ("Options:", "Positionals:", "Subcommands:").
std::vector<Entry> section(const std::vector<std::string>& lines, const std::string& title) {
  std::vector<Entry> out;
  std::size_t i = 0;
  while (i < lines.size() && lines[i] != title) ++i;
  const std::string indent(kColumn, ' ');
  const auto continued = [&](std::size_t k) {
    return k < lines.size() && lines[k].size() > kColumn &&
           lines[k].compare(0, kColumn, indent) == 0;
  };
  for (++i; i < lines.size() && !lines[i].empty(); ++i) {
    const std::string& line = lines[i];
    Entry e;
    if (continued(i + 1)) {  // a long name part: the description is the next line
      e.name_part = trimmed(line);
      e.description = trimmed(lines[++i]);
    } else if (line.size() > kColumn) {
      e.name_part = trimmed(line.substr(0, kColumn));
      e.description = trimmed(line.substr(kColumn));
    } else {
      e.name_part = trimmed(line);
    }
    out.push_back(std::move(e));
  }
  return out;
}

// "-o,--out TEXT", "--format TEXT:{text,json}", "--target ENUM:value in {bare->0,k8s->1} OR
// {0,1}", "--node TEXT Excludes: --node-rank", "SPEC TEXT REQUIRED", "--force".
Option option_of(const Entry& e, bool positional) {
  Option o;
  o.description = e.description;
  const std::size_t space = e.name_part.find(' ');
  const std::string names = e.name_part.substr(0, space);
  const std::string rest = space == std::string::npos ? "" : e.name_part.substr(space + 1);
  if (positional) {
    o.positional = names;
  } else {
    std::size_t start = 0;
    for (std::size_t comma; (comma = names.find(',', start)) != std::string::npos;
         start = comma + 1) {
      o.names.push_back(names.substr(start, comma - start));
    }
    o.names.push_back(names.substr(start));
  }
  // A value's type is an upper-case word (TEXT, INT, ENUM, FLOAT, ...) right after the names.
  std::size_t end = 0;
  while (end < rest.size() && rest[end] >= 'A' && rest[end] <= 'Z') ++end;
  const bool typed =
      end > 0 && (end == rest.size() || rest[end] == ' ' || rest[end] == ':' || rest[end] == '=') &&
      rest.compare(0, end, "REQUIRED") != 0;
  o.takes_value = positional || typed;
  if (typed) o.type = rest.substr(0, end);
  // Which values are file names CLI11 does not say; the names of pai's options do. (The type
  // must be known first: before, no option was ever a path, and zsh completed no file.)
  for (const char* word : {"file", "dir", "out", "plan", "hosts", "jpath", "path", "SPEC"}) {
    if (names.find(word) != std::string::npos) o.path = o.takes_value && o.type == "TEXT";
  }
  // The choices: the first braces, "name->value" entries reduced to their names.
  const std::size_t open = rest.find('{');
  const std::size_t close = rest.find('}', open);
  if (typed && open != std::string::npos && close != std::string::npos) {
    std::string item;
    for (std::size_t i = open + 1; i <= close; ++i) {
      if (rest[i] == ',' || rest[i] == '}') {
        if (!item.empty()) o.choices.push_back(item.substr(0, item.find("->")));
        item.clear();
      } else {
        item += rest[i];
      }
    }
  }
  return o;
}

// The command `program` (with `words` after it) as its --help describes it; subcommands too.
Command command_of(const std::string& program, const std::string& name,
                   const std::string& words_after, const std::string& description) {
  Command c;
  c.name = name;
  c.description = description;
  const std::string help = output_of(single_quoted(program) + words_after + " --help 2>&1");
  const std::vector<std::string> lines = lines_of(help);
  // Not CLI11's help (pai-launch rsh parses its own, ssh-like command line): nothing to list.
  if (help.find("\nUsage: ") == std::string::npos) return c;
  if (c.description.empty() && !lines.empty()) c.description = lines.front();
  for (const Entry& e : section(lines, "Options:")) c.options.push_back(option_of(e, false));
  for (const Entry& e : section(lines, "Positionals:")) {
    c.positionals.push_back(option_of(e, true));
  }
  if (!words_after.empty()) return c;
  for (const Entry& e : section(lines, "Subcommands:")) {
    c.subcommands.push_back(command_of(program, e.name_part, " " + e.name_part, e.description));
  }
  return c;
}

std::string words(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : " ") + item;
  return out;
}

// `text` inside single quotes in a shell script.
std::string single_quoted(const std::string& text) {
  std::string out = "'";
  for (char ch : text) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

// --- bash

// The case arms completing the value of the option before the cursor, for command `cmd`
// ("" for the program itself): its choices, file names for TEXT, nothing for numbers.
void bash_value_arms(const Command& c, const std::string& cmd, std::string& out) {
  for (const Option& o : c.options) {
    if (!o.takes_value) continue;
    std::string patterns;
    for (const std::string& name : o.names) {
      patterns += (patterns.empty() ? "" : "|") + single_quoted(cmd + " " + name);
    }
    out += "    " + patterns + ")\n";
    if (!o.choices.empty()) {
      out += "      mapfile -t COMPREPLY < <(compgen -W " + single_quoted(words(o.choices)) +
             " -- \"$cur\")\n";
    } else if (o.path) {
      out +=
          "      compopt -o filenames 2>/dev/null\n"
          "      mapfile -t COMPREPLY < <(compgen -f -- \"$cur\")\n";
    }
    out += "      return ;;\n";
  }
}

std::string option_names(const Command& c) {
  std::vector<std::string> names;
  for (const Option& o : c.options) names.insert(names.end(), o.names.begin(), o.names.end());
  return words(names);
}

std::string bash_script(const Command& app, const std::string& program) {
  std::string function = "_";
  for (char ch : program) function += (ch == '-' ? '_' : ch);
  std::vector<std::string> commands;
  for (const Command& sub : app.subcommands) commands.push_back(sub.name);
  std::string out = "# bash completion for " + program + ", written by pai-cli-reference from `" +
                    program + " --help`.\n" + function +
                    "() {\n"
                    "  local cur=${COMP_WORDS[COMP_CWORD]} prev= cmd= i\n"
                    "  ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}\n";
  if (!commands.empty()) {
    std::string patterns;
    for (const std::string& name : commands) patterns += (patterns.empty() ? "" : "|") + name;
    out +=
        "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
        "    case ${COMP_WORDS[i]} in\n"
        "      " +
        patterns +
        ") cmd=${COMP_WORDS[i]}; break ;;\n"
        "    esac\n"
        "  done\n";
  }
  out += "  COMPREPLY=()\n  case \"$cmd $prev\" in\n";
  bash_value_arms(app, "", out);
  for (const Command& sub : app.subcommands) bash_value_arms(sub, sub.name, out);
  out += "  esac\n  local options\n  case $cmd in\n";
  out += "    '') options=" + single_quoted(option_names(app)) + " ;;\n";
  for (const Command& sub : app.subcommands) {
    out += "    " + sub.name + ") options=" + single_quoted(option_names(sub)) + " ;;\n";
  }
  out +=
      "  esac\n"
      "  if [[ $cur == -* ]]; then\n"
      "    mapfile -t COMPREPLY < <(compgen -W \"$options\" -- \"$cur\")\n"
      "    return\n"
      "  fi\n";
  if (!commands.empty()) {
    out +=
        "  if [[ -z $cmd ]]; then\n"
        "    mapfile -t COMPREPLY < <(compgen -W " +
        single_quoted(words(commands)) +
        " -- \"$cur\")\n"
        "    return\n"
        "  fi\n";
  }
  out +=
      "  compopt -o filenames 2>/dev/null\n"
      "  mapfile -t COMPREPLY < <(compgen -f -- \"$cur\")\n"
      "}\n"
      "complete -F " +
      function + " " + program + "\n";
  return out;
}

// --- zsh

// `text` inside the [...] of an _arguments spec (itself in single quotes).
std::string zsh_description(const std::string& text) {
  std::string out;
  for (char ch : text) {
    if (ch == '[' || ch == ']' || ch == '\\') out += '\\';
    out += ch;
  }
  return out;
}

std::string zsh_action(const Option& o) {
  if (!o.choices.empty()) return "(" + words(o.choices) + ")";
  return o.path ? "_files" : " ";
}

// The _arguments specs of a command's options and positionals, one per line.
std::string zsh_specs(const Command& c, const std::string& indent) {
  std::string out;
  for (const Option& o : c.options) {
    std::string names;
    std::string exclusions;
    if (o.names.size() == 1) {
      names = o.names[0];
    } else {
      exclusions = "(" + words(o.names) + ")";
      names = "{";
      for (std::size_t i = 0; i < o.names.size(); ++i) names += (i ? "," : "") + o.names[i];
      names += "}";
    }
    std::string spec = "[" + zsh_description(o.description) + "]";
    if (o.takes_value) {
      std::string label = o.names.back();
      while (!label.empty() && label.front() == '-') label.erase(0, 1);
      spec += ":" + label + ":" + zsh_action(o);
    }
    out += indent +
           (o.names.size() == 1 ? single_quoted(names + spec)
                                : single_quoted(exclusions) + names + single_quoted(spec)) +
           " \\\n";
  }
  for (std::size_t i = 0; i < c.positionals.size(); ++i) {
    const Option& p = c.positionals[i];
    const bool last = i + 1 == c.positionals.size();
    // A positional's action must complete something: with " " (a message only) zsh lists the
    // option names a word starting with "-" could be but never inserts the one that matches.
    const std::string action = p.choices.empty() && !p.path ? "_default" : zsh_action(p);
    out += indent +
           single_quoted((last ? std::string("*") : std::to_string(i + 1)) + ":" + p.positional +
                         ":" + action) +
           " \\\n";
  }
  return out;
}

std::string zsh_script(const Command& app, const std::string& program) {
  std::string function = "_";
  for (char ch : program) function += (ch == '-' ? '_' : ch);
  std::string out = "#compdef " + program + "\n# zsh completion for " + program +
                    ", written by pai-cli-reference from `" + program + " --help`.\n" + function +
                    "() {\n"
                    "  local context state state_descr line\n"
                    "  typeset -A opt_args\n";
  if (app.subcommands.empty()) {
    out += "  _arguments -s \\\n" + zsh_specs(app, "    ") + "    && return 0\n}\n";
  } else {
    out += "  _arguments -C \\\n" + zsh_specs(app, "    ") +
           "    '1:command:->command' \\\n"
           "    '*::argument:->argument' && return 0\n"
           "  case $state in\n"
           "    command)\n"
           "      local -a commands=(\n";
    for (const Command& sub : app.subcommands) {
      out += "        " + single_quoted(sub.name + ":" + zsh_description(sub.description)) + "\n";
    }
    out +=
        "      )\n"
        "      _describe -t commands " +
        single_quoted(program + " command") +
        " commands ;;\n"
        "    argument)\n"
        "      case $words[1] in\n";
    for (const Command& sub : app.subcommands) {
      out += "        " + sub.name + ")\n          _arguments \\\n" +
             zsh_specs(sub, "            ") + "            ;;\n";
    }
    out += "      esac ;;\n  esac\n}\n";
  }
  out += "\n" + function + " \"$@\"\n";
  return out;
}

// --- roff

// `text` for roff: backslashes and hyphens escaped, a leading dot or quote made literal.
std::string roff(const std::string& text) {
  std::string out;
  for (char ch : text) {
    if (ch == '\\') {
      out += "\\e";
    } else if (ch == '-') {
      out += "\\-";
    } else {
      out += ch;
    }
  }
  if (!out.empty() && (out.front() == '.' || out.front() == '\'')) out.insert(0, "\\&");
  return out;
}

void roff_option(const Option& o, std::string& out) {
  out += ".TP\n";
  if (o.names.empty()) {
    out += "\\fI" + roff(o.positional) + "\\fR";
  } else {
    for (std::size_t i = 0; i < o.names.size(); ++i) {
      out += (i ? ", " : "") + std::string("\\fB") + roff(o.names[i]) + "\\fR";
    }
    if (o.takes_value) out += " \\fI" + roff(o.type.empty() ? "VALUE" : o.type) + "\\fR";
  }
  out += "\n" + roff(o.description);
  if (!o.choices.empty()) {
    std::string list;
    for (const std::string& choice : o.choices) list += (list.empty() ? "" : ", ") + choice;
    out += " (one of: " + roff(list) + ")";
  }
  out += "\n";
}

std::string man_options(const Command& c) {
  std::string out = ".SH OPTIONS\n";
  for (const Option& p : c.positionals) roff_option(p, out);
  for (const Option& o : c.options) roff_option(o, out);
  if (c.subcommands.empty()) return out;
  out += ".SH COMMANDS\n";
  for (const Command& sub : c.subcommands) {
    out += ".SS " + roff(c.name + " " + sub.name) + "\n" + roff(sub.description) + "\n";
    for (const Option& p : sub.positionals) roff_option(p, out);
    for (const Option& o : sub.options) roff_option(o, out);
  }
  return out;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The man page: `page` with its line "@OPTIONS@" replaced and "@VERSION@" filled in.
std::string man_page(const Command& c, const std::string& page, const std::string& version) {
  std::string out;
  for (const std::string& line : lines_of(page)) {
    if (line == "@OPTIONS@") {
      out += man_options(c);
      continue;
    }
    std::string text = line;
    for (std::size_t at; (at = text.find("@VERSION@")) != std::string::npos;) {
      text.replace(at, 9, version);
    }
    out += text + "\n";
  }
  return out;
}

int usage() {
  std::cerr << "usage: pai-cli-reference bash|zsh PROGRAM NAME OUT\n"
               "       pai-cli-reference man PROGRAM NAME TEMPLATE OUT\n";
  return 2;
}

int run(const std::vector<std::string>& args) {
  if (args.size() < 4) return usage();
  const std::string& what = args[0];
  const std::string& program = args[1];
  const std::string& name = args[2];
  std::string text;
  const Command c = command_of(program, name, "", "");
  if ((what == "bash" || what == "zsh") && args.size() == 4) {
    text = what == "bash" ? bash_script(c, name) : zsh_script(c, name);
  } else if (what == "man" && args.size() == 5) {
    // "pai-compile 0.1.0" -> "0.1.0"
    std::string version = trimmed(output_of(single_quoted(program) + " --version"));
    while (!version.empty() && version.back() == '\n') version.pop_back();
    version = version.substr(version.rfind(' ') + 1);
    text = man_page(c, slurp(args[3]), version);
  } else {
    return usage();
  }
  std::ofstream out(args.back());
  out << text;
  out.close();
  if (!out) throw std::runtime_error("cannot write " + args.back());
  return 0;
}

}  // namespace
}  // namespace pai::cli_reference

int main(int argc, char** argv) {
  try {
    return pai::cli_reference::run(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::exception& e) {
    std::cerr << "pai-cli-reference: " << e.what() << "\n";
    return 1;
  }
}
