// sim/case_file.cpp: the case-file parser (format: sim/README.md).
#include "case_file.hpp"

#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

namespace stealpool::sim {

bool Expected::matches(std::uint64_t v) const {
  if (allowed.empty()) return true;
  for (std::uint64_t a : allowed)
    if (a == v) return true;
  return false;
}

std::string Expected::describe() const {
  if (allowed.empty()) return "any";
  std::string s;
  for (std::uint64_t a : allowed) s += (s.empty() ? "" : " or ") + std::to_string(a);
  return s;
}

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

class Parser {
 public:
  explicit Parser(std::string path) { c_.path = std::move(path); }

  Case run(std::istream& in) {
    std::vector<std::string> lines;
    for (std::string l; std::getline(in, l);) {
      const auto hash = l.find('#');
      lines.push_back(trim(hash == std::string::npos ? l : l.substr(0, hash)));
    }
    // Pass 1: task names, so programs may refer to tasks defined later.
    for (std::size_t i = 0; i < lines.size(); ++i) {
      line_ = i + 1;
      const auto w = words(lines[i]);
      if (w.empty() || w[0] != "task") continue;
      if (w.size() < 2) fail("task needs a name");
      std::string name = w[1];
      if (!name.empty() && name.back() == ':') name.pop_back();
      if (names_.count(name)) fail("task " + name + " defined twice");
      names_[name] = static_cast<std::uint32_t>(c_.programs.size());
      c_.programs.push_back(Program{name, 0, {}});
    }
    for (std::size_t i = 0; i < lines.size(); ++i) {
      line_ = i + 1;
      if (!lines[i].empty()) parse_line(lines[i]);
    }
    if (c_.workers == 0 || c_.workers > 64) fail("workers must be 1..64");
    check_pool_kind();
    if (c_.producers.empty()) fail("no external events: nothing would ever run");
    // A case with neither join nor shutdown ends with a join by producer 0.
    bool ends = false;
    for (const auto& events : c_.producers)
      for (const Event& e : events) ends = ends || e.kind == Event::Kind::join || e.kind == Event::Kind::shutdown;
    if (!ends) c_.producers[0].push_back(Event{Event::Kind::join, 0, 0, false, 0, lines.size()});
    return std::move(c_);
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error(c_.path + ":" + std::to_string(line_) + ": " + what);
  }

  // Ops and events that exist for one kind of pool only.
  void check_pool_kind() {
    for (const Program& p : c_.programs)
      for (const Op& op : p.ops) {
        const bool fj_only = op.kind == Op::Kind::join || op.kind == Op::Kind::work;
        const bool exec_only = op.kind == Op::Kind::throw_error || op.kind == Op::Kind::yield;
        if (fj_only && !c_.forkjoin) fail_at(0, "task " + p.name + ": join and work need `pool forkjoin`");
        if (exec_only && c_.forkjoin)
          fail_at(0, "task " + p.name + ": throw and yield are for executor pools (a fork-join job keeps "
                     "its exception for its joiner)");
      }
    for (const auto& events : c_.producers)
      for (const Event& e : events) {
        if (e.kind == Event::Kind::run && !c_.forkjoin) fail_at(e.line, "run needs `pool forkjoin`");
        if (e.kind == Event::Kind::shutdown && c_.forkjoin)
          fail_at(e.line, "a ThreadPool has no shutdown(); use join");
      }
  }

  [[noreturn]] void fail_at(std::size_t line, const std::string& what) {
    line_ = line;
    fail(what);
  }

  // NAME[+K][*N]: a task, the depth it adds (K, default 1) and how many (N).
  struct ChildRef {
    std::uint32_t program, depth_step;
    std::uint64_t count;
  };
  ChildRef child(const std::string& token) const {
    std::string name = token;
    std::uint64_t count = 1, step = 1;
    if (const auto star = name.find('*'); star != std::string::npos) {
      count = number(name.substr(star + 1));
      name.resize(star);
    }
    if (const auto plus = name.find('+'); plus != std::string::npos) {
      step = number(name.substr(plus + 1));
      name.resize(plus);
    }
    return {program(name), static_cast<std::uint32_t>(step), count};
  }

  std::uint64_t number(const std::string& s) const {
    try {
      std::size_t used = 0;
      const std::uint64_t v = std::stoull(s, &used, 0);
      if (used != s.size()) fail("not a number: " + s);
      return v;
    } catch (const std::logic_error&) {
      fail("not a number: " + s);
    }
  }

  std::uint32_t program(const std::string& name) const {
    const auto it = names_.find(name);
    if (it == names_.end()) fail("unknown task " + name);
    return it->second;
  }

  void parse_line(const std::string& line) {
    const auto w = words(line);
    const std::string& k = w[0];
    auto one = [&]() -> std::uint64_t {
      if (w.size() != 2) fail(k + " takes one number");
      return number(w[1]);
    };
    if (k == "pool") {
      if (w.size() != 2 || (w[1] != "executor" && w[1] != "forkjoin")) fail("expected: pool executor|forkjoin");
      c_.forkjoin = w[1] == "forkjoin";
    } else if (k == "capacity") c_.deque_capacity = one();
    else if (k == "workers") c_.workers = one();
    else if (k == "steal_tries") c_.steal_tries = static_cast<std::uint32_t>(one());
    else if (k == "spin_iters") c_.spin_iters = static_cast<std::uint32_t>(one());
    else if (k == "stale_reads") c_.stale_reads = static_cast<std::uint32_t>(one());
    else if (k == "retry_percent") c_.retry_percent = static_cast<std::uint32_t>(one());
    else if (k == "liveness_bound") c_.liveness_bound = one();
    else if (k == "max_steps") c_.max_steps = one();
    else if (k == "task") parse_task(line);
    else if (k == "external" || k == "join" || k == "shutdown" || k == "run") parse_event(w);
    else if (k == "expect") parse_expect(w);
    else fail("unknown directive " + k);
  }

  // task NAME [depth D]: op; op; ...
  void parse_task(const std::string& line) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) fail("task needs a ':'");
    const auto head = words(line.substr(0, colon));
    Program& p = c_.programs[program(head[1])];
    if (head.size() == 4 && head[2] == "depth") p.depth_limit = static_cast<std::uint32_t>(number(head[3]));
    else if (head.size() != 2) fail("expected: task NAME [depth D]: ops");
    std::istringstream ops(line.substr(colon + 1));
    for (std::string op; std::getline(ops, op, ';');) {
      const auto w = words(op);
      if (w.empty()) continue;
      if (w[0] == "complete") continue;  // the default end of every program
      if (w[0] == "throw" || w[0] == "yield") {
        p.ops.push_back(Op{w[0] == "throw" ? Op::Kind::throw_error : Op::Kind::yield, {}, {}, 0});
        continue;
      }
      Op o{};
      if (w[0] == "work") {
        if (w.size() != 2) fail("expected: work STEPS");
        o.kind = Op::Kind::work;
        o.count = static_cast<std::uint32_t>(number(w[1]));
        if (o.count == 0) fail("work needs at least one step");
        p.ops.push_back(std::move(o));
        continue;
      }
      if (w[0] == "spawn_local") o.kind = Op::Kind::spawn_local;
      else if (w[0] == "spawn_global") o.kind = Op::Kind::spawn_global;
      else if (w[0] == "join") o.kind = Op::Kind::join;
      else fail("unknown op " + w[0]);
      for (std::size_t i = 1; i < w.size(); ++i) {
        const ChildRef r = child(w[i]);
        for (std::uint64_t j = 0; j < r.count; ++j) {
          o.children.push_back(r.program);
          o.depth_steps.push_back(r.depth_step);
        }
      }
      if (o.children.empty()) fail(w[0] + " needs at least one task");
      if (o.kind == Op::Kind::join && o.children.size() != 2) fail("expected: join A B (A runs inline, B is pushed)");
      p.ops.push_back(std::move(o));
    }
  }

  // external NAME[*N] | external batch N NAME | join | shutdown, then [at S] [by P]
  void parse_event(const std::vector<std::string>& w) {
    Event e{};
    e.line = line_;
    std::size_t i = 1;
    if (w[0] == "join") e.kind = Event::Kind::join;
    else if (w[0] == "shutdown") e.kind = Event::Kind::shutdown;
    else if (w[0] == "run") {
      if (i >= w.size()) fail("expected: run TASK[*N]");
      e.kind = Event::Kind::run;
      const auto star = w[i].find('*');
      e.program = program(w[i].substr(0, star));
      e.count = star == std::string::npos ? 1 : static_cast<std::uint32_t>(number(w[i].substr(star + 1)));
      ++i;
    } else {
      e.kind = Event::Kind::external;
      if (i < w.size() && w[i] == "batch") {
        if (w.size() < 4) fail("expected: external batch N TASK");
        e.batch = true;
        e.count = static_cast<std::uint32_t>(number(w[i + 1]));
        e.program = program(w[i + 2]);
        i += 3;
      } else {
        if (i >= w.size()) fail("expected: external TASK[*N]");
        const auto star = w[i].find('*');
        e.program = program(w[i].substr(0, star));
        e.count = star == std::string::npos ? 1 : static_cast<std::uint32_t>(number(w[i].substr(star + 1)));
        ++i;
      }
    }
    std::size_t producer = 0;
    for (; i < w.size(); i += 2) {
      if (i + 1 >= w.size()) fail("dangling " + w[i]);
      if (w[i] == "at") e.at = number(w[i + 1]);
      else if (w[i] == "by") producer = number(w[i + 1]);
      else fail("unknown event option " + w[i]);
    }
    if (producer >= 16) fail("producers are 0..15");
    if (c_.producers.size() <= producer) c_.producers.resize(producer + 1);
    if ((e.kind == Event::Kind::external && !e.batch) || e.kind == Event::Kind::run) {
      // N single spawns (or run calls) are N events, so other steps interleave between them.
      const std::uint32_t n = e.count;
      e.count = 1;
      for (std::uint32_t j = 0; j < n; ++j) c_.producers[producer].push_back(e);
    } else {
      c_.producers[producer].push_back(e);
    }
  }

  void parse_expect(const std::vector<std::string>& w) {
    if (w.size() < 2) fail("expect what?");
    if (w[1] == "error" || w[1] == "no_error") {
      c_.expect_error = (w[1] == "error");
      return;
    }
    if (w.size() < 3) fail("expect " + w[1] + " needs a value");
    if (w[1] == "trace_hash") {
      c_.expect_trace_hash = number(w[2]);
      return;
    }
    Expected e;
    if (w[2] != "any")
      for (std::size_t i = 2; i < w.size(); ++i)
        if (w[i] != "or") e.allowed.push_back(number(w[i]));
    if (w[1] == "executed") c_.expect_executed = e;
    else if (w[1] == "dropped") c_.expect_dropped = e;
    else if (w[1] == "rejected") c_.expect_rejected = e;
    else fail("unknown expectation " + w[1]);
  }

  Case c_;
  std::size_t line_ = 0;
  std::map<std::string, std::uint32_t> names_;
};

}  // namespace

Case load_case(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("sim: cannot open case file " + path);
  return Parser(path).run(in);
}

Case parse_case(const std::string& text, const std::string& name) {
  std::istringstream in(text);
  return Parser(name).run(in);
}

}  // namespace stealpool::sim
