// btcpp_oracle: the project's window on the real BehaviorTree.CPP 4.8.2. It creates and ticks
// a Groot / BehaviorTree.CPP XML file exactly as an application linking the library would,
// and reports what the library did, as JSON, so that tests can compare affect with it.
//
//   btcpp_oracle version
//   btcpp_oracle models                       (the library's built-in nodes and their ports)
//   btcpp_oracle load  FILE.xml [--tree ID] [--stand-ins]
//   btcpp_oracle trace FILE.xml [--ticks N] [--bb KEY[:TYPE]=VALUE]... [--custom-result KEY=S1,S2..]...
//                      [--sleep-ms MS] [--no-idle] [--tree ID] [--stand-ins]
//   btcpp_oracle bench FILE.xml [--seconds S] [--repeats R] [--bb ...] [--custom-result ...] [--tree ID]
//
// FILE.xml may be `-` (standard input). Exit status: 0 done, 1 bad arguments or an unreadable
// file, 2 the library refused to create the tree (its message on stderr), 3 a tick threw.
// README.md beside this file describes the output and the stand-ins for custom nodes.
//
// Built by setup.sh against the headers of behaviortreepy's sdist and linked to the library in
// its wheel (which uses the old std::string ABI: -D_GLIBCXX_USE_CXX11_ABI=0).

#include <behaviortree_cpp/bt_factory.h>
#include <behaviortree_cpp/controls/sequence_node.h>
#include <behaviortree_cpp/loggers/abstract_logger.h>
#include <behaviortree_cpp/contrib/json.hpp>
#include "tinyxml2.h"
#include "affect_bt.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using Json = nlohmann::json;
using Steady = std::chrono::steady_clock;

namespace
{

// ---------------------------------------------------------------------------------------------
// Command line

struct Options
{
  std::string command;
  std::string file;
  std::string tree;
  std::vector<std::string> presets;                              // --bb
  std::map<std::string, std::vector<BT::NodeStatus>> results;   // --custom-result
  long ticks = 1;
  long sleep_ms = 0;
  bool idle = true;
  bool stand_ins = false;   // --stand-ins: register unmodelled node IDs as stand-ins
  double seconds = 2.0;
  long repeats = 7;
};

[[noreturn]] void usage(const std::string& why)
{
  std::cerr << "btcpp_oracle: " << why << "\n"
            << "usage: btcpp_oracle version | models | load FILE [--tree ID] [--stand-ins] | "
               "trace FILE [--ticks N] [--bb KEY[:TYPE]=VALUE].. [--custom-result KEY=S1,S2..].. "
               "[--sleep-ms MS] [--no-idle] [--tree ID] [--stand-ins] | bench FILE [--seconds S] "
               "[--repeats R] [--bb ..] [--custom-result ..] [--tree ID]\n";
  std::exit(1);
}

long integer(const std::string& option, const std::string& text)
{
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if(text.empty() || *end != '\0' || v < 0)
  {
    usage(option + " needs a whole number, not `" + text + "`");
  }
  return v;
}

BT::NodeStatus status(std::string text)
{
  for(auto& c : text)
  {
    c = char(std::toupper(static_cast<unsigned char>(c)));
  }
  if(text == "SUCCESS")
    return BT::NodeStatus::SUCCESS;
  if(text == "FAILURE")
    return BT::NodeStatus::FAILURE;
  if(text == "RUNNING")
    return BT::NodeStatus::RUNNING;
  usage("a status is SUCCESS, FAILURE or RUNNING, not `" + text + "`");
}

Options parse(int argc, char** argv)
{
  Options o;
  if(argc < 2)
  {
    usage("no command");
  }
  o.command = argv[1];
  const std::set<std::string> commands{ "version", "models", "load", "trace", "bench" };
  if(!commands.count(o.command))
  {
    usage("unknown command `" + o.command + "`");
  }
  for(int i = 2; i < argc; i++)
  {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if(i + 1 >= argc)
        usage(a + " needs a value");
      return argv[++i];
    };
    if(a == "--ticks")
      o.ticks = integer(a, value());
    else if(a == "--sleep-ms")
      o.sleep_ms = integer(a, value());
    else if(a == "--repeats")
      o.repeats = std::max(1L, integer(a, value()));
    else if(a == "--seconds")
    {
      const std::string v = value();
      o.seconds = std::atof(v.c_str());
      if(!(o.seconds > 0))
        usage("--seconds needs a positive number");
    }
    else if(a == "--tree")
      o.tree = value();
    else if(a == "--bb")
      o.presets.push_back(value());
    else if(a == "--no-idle")
      o.idle = false;
    else if(a == "--stand-ins")
      o.stand_ins = true;
    else if(a == "--custom-result")
    {
      const std::string kv = value();
      const auto eq = kv.find('=');
      if(eq == std::string::npos || eq == 0 || eq + 1 == kv.size())
        usage("--custom-result needs KEY=STATUS[,STATUS..]");
      std::vector<BT::NodeStatus> seq;
      std::istringstream in(kv.substr(eq + 1));
      for(std::string s; std::getline(in, s, ',');)
        seq.push_back(status(s));
      o.results[kv.substr(0, eq)] = seq;
    }
    else if(a.size() > 1 && a[0] == '-')
      usage("unknown option " + a);
    else if(o.file.empty())
      o.file = a;
    else
      usage("one file only");
  }
  if(o.command != "version" && o.command != "models" && o.file.empty())
  {
    usage("no FILE.xml");
  }
  return o;
}

bool read(const std::string& path, std::string& text)
{
  std::ostringstream s;
  if(path == "-")
  {
    s << std::cin.rdbuf();
  }
  else
  {
    std::ifstream in(path, std::ios::binary);
    if(!in)
      return false;
    s << in.rdbuf();
  }
  text = s.str();
  return true;
}

std::string directory(const std::string& path)
{
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
}

// ---------------------------------------------------------------------------------------------
// Stand-ins for custom nodes: what the model entries of the file declare, with the ports they
// declare. Leaves play a list of statuses (one per tick of their own, the last repeating).

class Script
{
public:
  explicit Script(std::vector<BT::NodeStatus> s) : steps_(std::move(s))
  {}
  BT::NodeStatus next()
  {
    const auto s = steps_[std::min(at_, steps_.size() - 1)];
    at_++;
    return s;
  }

private:
  std::vector<BT::NodeStatus> steps_;
  size_t at_ = 0;
};

class StandInAction : public BT::StatefulActionNode
{
public:
  StandInAction(const std::string& name, const BT::NodeConfig& c, Script s)
    : BT::StatefulActionNode(name, c), script_(std::move(s))
  {}
  BT::NodeStatus onStart() override
  {
    return script_.next();
  }
  BT::NodeStatus onRunning() override
  {
    return script_.next();
  }
  void onHalted() override
  {}

private:
  Script script_;
};

class StandInCondition : public BT::ConditionNode
{
public:
  StandInCondition(const std::string& name, const BT::NodeConfig& c, Script s)
    : BT::ConditionNode(name, c), script_(std::move(s))
  {}
  BT::NodeStatus tick() override
  {
    return script_.next();
  }

private:
  Script script_;
};

// Passes the child's status through; goes RUNNING first and resets a completed child, as the
// library's own ForceSuccess does.
class StandInDecorator : public BT::DecoratorNode
{
public:
  StandInDecorator(const std::string& name, const BT::NodeConfig& c) : BT::DecoratorNode(name, c)
  {}
  BT::NodeStatus tick() override
  {
    setStatus(BT::NodeStatus::RUNNING);
    const auto s = child_node_->executeTick();
    if(BT::isStatusCompleted(s))
      resetChild();
    return s;
  }
};

// The port types whose text the library converts; others (and none) are untyped ports.
template <typename T>
BT::PortInfo typed(BT::PortDirection d)
{
  return BT::PortInfo(d, typeid(T), BT::GetAnyFromStringFunctor<T>());
}

BT::PortInfo port_info(BT::PortDirection d, const char* type)
{
  if(!type)
    return BT::PortInfo(d);
  std::string t;
  for(const char* c = type; *c; c++)
    if(!std::isspace(static_cast<unsigned char>(*c)))
      t += *c;
  using Make = BT::PortInfo (*)(BT::PortDirection);
  static const std::map<std::string, Make> table{
    { "bool", &typed<bool> },
    { "int", &typed<int> },
    { "int32_t", &typed<int> },
    { "unsignedint", &typed<unsigned> },
    { "unsigned", &typed<unsigned> },
    { "uint32_t", &typed<unsigned> },
    { "long", &typed<long> },
    { "int64_t", &typed<long> },
    { "unsignedlong", &typed<unsigned long> },
    { "uint64_t", &typed<unsigned long> },
    { "size_t", &typed<unsigned long> },
    { "std::size_t", &typed<unsigned long> },
    { "short", &typed<short> },
    { "int16_t", &typed<short> },
    { "unsignedshort", &typed<unsigned short> },
    { "uint16_t", &typed<unsigned short> },
    { "int8_t", &typed<signed char> },
    { "uint8_t", &typed<unsigned char> },
    { "float", &typed<float> },
    { "double", &typed<double> },
    { "std::string", &typed<std::string> },
    { "string", &typed<std::string> },
    { "std::__cxx11::string", &typed<std::string> },
    { "BT::NodeStatus", &typed<BT::NodeStatus> },
    { "NodeStatus", &typed<BT::NodeStatus> },
    { "std::vector<int>", &typed<std::vector<int>> },
    { "std::vector<double>", &typed<std::vector<double>> },
    { "std::vector<bool>", &typed<std::vector<bool>> },
    { "std::vector<std::string>", &typed<std::vector<std::string>> },
  };
  const auto found = table.find(t);
  return found == table.end() ? BT::PortInfo(d) : found->second(d);
}

struct Registry
{
  const Options& options;
  BT::BehaviorTreeFactory& factory;
  std::vector<std::string> registered;
  std::set<std::string> files_seen;

  Script script_for(const std::string& id, const std::string& name, const BT::NodeConfig& c) const
  {
    for(const auto& key : { c.path, name, id })
    {
      const auto it = options.results.find(key);
      if(it != options.results.end())
        return Script(it->second);
    }
    return Script({ BT::NodeStatus::SUCCESS });
  }

  void entry(const tinyxml2::XMLElement* e)
  {
    const std::string kind = e->Name();
    const char* id_attr = e->Attribute("ID");
    if(!id_attr)
      return;
    const std::string id = id_attr;
    static const std::map<std::string, BT::NodeType> kinds{
      { "Action", BT::NodeType::ACTION },
      { "Condition", BT::NodeType::CONDITION },
      { "Decorator", BT::NodeType::DECORATOR },
      { "Control", BT::NodeType::CONTROL },
    };
    const auto k = kinds.find(kind);
    // SubTree models are the library's own business; built-ins and repeated entries stay.
    if(k == kinds.end() || factory.builtinNodes().count(id) || factory.manifests().count(id))
      return;
    BT::TreeNodeManifest m;
    m.registration_ID = id;
    m.type = k->second;
    static const std::map<std::string, BT::PortDirection> dirs{
      { "input_port", BT::PortDirection::INPUT },
      { "output_port", BT::PortDirection::OUTPUT },
      { "inout_port", BT::PortDirection::INOUT },
      { "bidirectional_port", BT::PortDirection::INOUT },
    };
    for(auto* p = e->FirstChildElement(); p; p = p->NextSiblingElement())
    {
      const auto d = dirs.find(p->Name());
      const char* name = p->Attribute("name");
      if(d == dirs.end() || !name)
        continue;
      BT::PortInfo info = port_info(d->second, p->Attribute("type"));
      if(const char* text = p->GetText())
        info.setDescription(text);
      if(const char* def = p->Attribute("default"))
        info.setDefaultValue(std::string(def));
      m.ports.insert({ name, info });
    }
    add(m);
  }

  // Registers `m` as its stand-in (see README.md).
  void add(const BT::TreeNodeManifest& m)
  {
    const std::string id = m.registration_ID;
    const Registry* self = this;
    BT::NodeBuilder build;
    switch(m.type)
    {
      case BT::NodeType::ACTION:
        build = [self, id](const std::string& n, const BT::NodeConfig& c) {
          return std::make_unique<StandInAction>(n, c, self->script_for(id, n, c));
        };
        break;
      case BT::NodeType::CONDITION:
        build = [self, id](const std::string& n, const BT::NodeConfig& c) {
          return std::make_unique<StandInCondition>(n, c, self->script_for(id, n, c));
        };
        break;
      case BT::NodeType::DECORATOR:
        build = [](const std::string& n, const BT::NodeConfig& c) {
          return std::make_unique<StandInDecorator>(n, c);
        };
        break;
      default:
        build = [](const std::string& n, const BT::NodeConfig& c) {
          return std::make_unique<BT::SequenceNode>(n, false, c);
        };
    }
    factory.registerBuilder(m, build);
    registered.push_back(id);
  }

  // --stand-ins: every node ID the trees use that nothing registered, as the file uses it (its
  // first use decides: an explicit tag's kind, else a leaf without children, a decorator with
  // one, a control with more), with every attribute any use gives it that can be a port.
  // Not an ID that differs from a built-in only in case or by at most two edits: BehaviorTree.CPP
  // refuses those as it refuses any unregistered ID, and the import takes them for misspellings.
  struct Use
  {
    BT::NodeType type;
    std::set<std::string> ports;
  };
  std::map<std::string, Use> uses;
  std::vector<std::string> use_order;

  void note_uses(const tinyxml2::XMLElement* tree)
  {
    static const std::map<std::string, BT::NodeType> explicit_tags{
      { "Action", BT::NodeType::ACTION },
      { "Condition", BT::NodeType::CONDITION },
      { "Decorator", BT::NodeType::DECORATOR },
      { "Control", BT::NodeType::CONTROL },
    };
    std::vector<const tinyxml2::XMLElement*> todo;
    for(auto* c = tree->LastChildElement(); c; c = c->PreviousSiblingElement())
      todo.push_back(c);
    while(!todo.empty())
    {
      const auto* e = todo.back();
      todo.pop_back();
      for(auto* c = e->LastChildElement(); c; c = c->PreviousSiblingElement())
        todo.push_back(c);
      const std::string tag = e->Name();
      if(tag == "SubTree")
        continue;
      std::string id = tag;
      BT::NodeType type;
      const auto k = explicit_tags.find(tag);
      if(k != explicit_tags.end())
      {
        const char* attr = e->Attribute("ID");
        if(!attr)
          continue;
        id = attr;
        type = k->second;
      }
      else
      {
        int children = 0;
        for(auto* c = e->FirstChildElement(); c; c = c->NextSiblingElement())
          children++;
        type = children == 0 ? BT::NodeType::ACTION :
               children == 1 ? BT::NodeType::DECORATOR :
                               BT::NodeType::CONTROL;
      }
      auto it = uses.find(id);
      if(it == uses.end())
      {
        it = uses.insert({ id, Use{ type, {} } }).first;
        use_order.push_back(id);
      }
      for(auto* a = e->FirstAttribute(); a; a = a->Next())
        if(BT::IsAllowedPortName(a->Name()) && !(a->Name() == std::string("ID")))
          it->second.ports.insert(a->Name());
    }
  }

  static size_t edit_distance(const std::string& a, const std::string& b)
  {
    // Damerau–Levenshtein (optimal string alignment), as the import's `suggest::edit_distance`.
    std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
    for(size_t i = 0; i <= a.size(); i++)
      d[i][0] = i;
    for(size_t j = 0; j <= b.size(); j++)
      d[0][j] = j;
    for(size_t i = 1; i <= a.size(); i++)
      for(size_t j = 1; j <= b.size(); j++)
      {
        const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
        d[i][j] = std::min({ d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost });
        if(i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
          d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    return d[a.size()][b.size()];
  }

  static std::string lower(std::string s)
  {
    for(auto& c : s)
      c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
  }

  bool near_builtin(const std::string& id) const
  {
    for(const auto& b : factory.builtinNodes())
      if(lower(b) == lower(id) || edit_distance(b, id) <= 2)
        return true;
    return false;
  }

  void register_stand_ins()
  {
    for(const auto& id : use_order)
    {
      if(factory.builtinNodes().count(id) || factory.manifests().count(id) || near_builtin(id))
        continue;
      const Use& u = uses.at(id);
      BT::TreeNodeManifest m;
      m.registration_ID = id;
      m.type = u.type;
      for(const auto& p : u.ports)
        m.ports.insert({ p, BT::PortInfo(BT::PortDirection::INOUT) });
      add(m);
      stand_ins.push_back(id);
    }
  }
  std::vector<std::string> stand_ins;

  // The model entries of a document and of the files it includes (relative to it).
  void document(const std::string& text, const std::string& dir, int depth)
  {
    tinyxml2::XMLDocument doc;
    if(depth > 64 || doc.Parse(text.c_str(), text.size()) != tinyxml2::XML_SUCCESS ||
       !doc.RootElement())
      return;   // the library reports a broken document itself
    const auto* root = doc.RootElement();
    for(auto* bt = root->FirstChildElement("BehaviorTree"); bt;
        bt = bt->NextSiblingElement("BehaviorTree"))
      note_uses(bt);
    for(auto* inc = root->FirstChildElement("include"); inc;
        inc = inc->NextSiblingElement("include"))
    {
      const char* path = inc->Attribute("path");
      if(!path || inc->Attribute("ros_pkg"))
        continue;
      const std::string full = path[0] == '/' ? std::string(path) : dir + "/" + path;
      std::string child;
      if(files_seen.insert(full).second && read(full, child))
        document(child, directory(full), depth + 1);
    }
    for(auto* models = root->FirstChildElement("TreeNodesModel"); models;
        models = models->NextSiblingElement("TreeNodesModel"))
      for(auto* e = models->FirstChildElement(); e; e = e->NextSiblingElement())
        entry(e);
  }
};

// ---------------------------------------------------------------------------------------------
// The blackboard: presets in, values out.

void preset(BT::Blackboard& bb, const std::string& spec)
{
  const auto eq = spec.find('=');
  if(eq == std::string::npos || eq == 0)
    usage("--bb needs KEY[:TYPE]=VALUE, not `" + spec + "`");
  std::string key = spec.substr(0, eq), type;
  const std::string v = spec.substr(eq + 1);
  if(const auto colon = key.find(':'); colon != std::string::npos)
  {
    type = key.substr(colon + 1);
    key = key.substr(0, colon);
  }
  if(type.empty())
  {
    char* end = nullptr;
    std::strtod(v.c_str(), &end);
    const bool number = !v.empty() && *end == '\0';
    const bool whole = number && v.find_first_of(".eEnN") == std::string::npos;
    type = (v == "true" || v == "false") ? "bool" : whole ? "int" : number ? "double" : "string";
  }
  try
  {
    if(type == "int")
      bb.set<int>(key, std::stoi(v));
    else if(type == "long")
      bb.set<int64_t>(key, std::stoll(v));
    else if(type == "uint")
      bb.set<unsigned>(key, unsigned(std::stoul(v)));
    else if(type == "ulong")
      bb.set<uint64_t>(key, std::stoull(v));
    else if(type == "double")
      bb.set<double>(key, std::stod(v));
    else if(type == "float")
      bb.set<float>(key, std::stof(v));
    else if(type == "bool")
      bb.set<bool>(key, BT::convertFromString<bool>(v));
    else if(type == "string")
      bb.set<std::string>(key, v);
    else
      usage("--bb type `" + type + "` is not int, long, uint, ulong, double, float, bool or string");
  }
  catch(const std::exception& e)
  {
    usage("--bb " + spec + ": " + e.what());
  }
}

BT::Blackboard::Ptr blackboard(const Options& o)
{
  auto bb = BT::Blackboard::create();
  for(const auto& p : o.presets)
    preset(*bb, p);
  return bb;
}

// Each entry as JSON (null for no value, NaN and infinities) and its C++ type.
Json dump(const BT::Blackboard& bb, Json& types)
{
  Json values = Json::object();
  for(const auto& k : bb.getKeys())
  {
    const std::string key(k);
    const auto entry = bb.getEntry(key);
    if(!entry)
      continue;
    std::unique_lock lock(entry->entry_mutex);
    const BT::Any& v = entry->value;
    Json out = nullptr;
    try
    {
      if(v.empty())
        out = nullptr;
      else if(v.isString())
        out = v.cast<std::string>();
      else if(v.type() == typeid(bool))
        out = v.cast<bool>();
      else if(v.castedType() == typeid(int64_t))
        out = v.cast<int64_t>();
      else if(v.castedType() == typeid(uint64_t))
        out = v.cast<uint64_t>();
      else if(v.castedType() == typeid(double))
        out = v.cast<double>();   // the JSON writer turns NaN and infinities into null
      else
        out = v.cast<std::string>();
    }
    catch(...)
    {
      out = nullptr;
    }
    values[key] = out;
    types[key] = v.empty() ? entry->info.typeName() : BT::demangle(v.type());
  }
  return values;
}

// ---------------------------------------------------------------------------------------------
// Creating the tree as an application does.

struct Session
{
  Options options;
  std::string xml;
  BT::BehaviorTreeFactory factory;
  Registry registry{ options, factory };

  explicit Session(Options o) : options(std::move(o))
  {
    if(!read(options.file, xml))
    {
      std::cerr << "btcpp_oracle: cannot read " << options.file << "\n";
      std::exit(1);
    }
    // affect's exports: what docs/groot.md tells a C++ user to register (cpp/affect_bt.hpp).
    affect_bt::registerExport(factory, xml);
    registry.document(xml, options.file == "-" ? "." : directory(options.file), 0);
    if(options.stand_ins)
      registry.register_stand_ins();
  }

  // The library's own entry points: from the file (so <include> resolves against it), or
  // from text for standard input and for repeated timing.
  BT::Tree create(BT::Blackboard::Ptr bb, bool from_text)
  {
    // createTreeFromFile("x.xml") fails in 4.8.2 (it makes the empty parent path absolute).
    const std::string path =
        options.file.find('/') == std::string::npos ? "./" + options.file : options.file;
    from_text = from_text || options.file == "-";
    if(options.tree.empty())
      return from_text ? factory.createTreeFromText(xml, bb) : factory.createTreeFromFile(path, bb);
    if(from_text)
      factory.registerBehaviorTreeFromText(xml);
    else
      factory.registerBehaviorTreeFromFile(path);
    BT::Tree tree = factory.createTree(options.tree, bb);
    factory.clearRegisteredBehaviorTrees();
    return tree;
  }

  // As `create`, with what the library prints meanwhile kept apart from our JSON; a refusal
  // ends the process with status 2 and the library's message on stderr.
  BT::Tree create_or_exit(BT::Blackboard::Ptr bb, bool from_text, std::string& printed,
                          bool json_refusal)
  {
    std::ostringstream chatter;
    auto* out = std::cout.rdbuf(chatter.rdbuf());
    auto* err = std::cerr.rdbuf(chatter.rdbuf());
    try
    {
      BT::Tree tree = create(bb, from_text);
      std::cout.rdbuf(out);
      std::cerr.rdbuf(err);
      printed = chatter.str();
      return tree;
    }
    catch(const std::exception& e)
    {
      std::cout.rdbuf(out);
      std::cerr.rdbuf(err);
      if(json_refusal)
      {
        Json j{ { "ok", false }, { "error", e.what() } };
        if(!chatter.str().empty())
          j["output"] = chatter.str();
        std::cout << j.dump() << std::endl;
      }
      std::cerr << e.what() << std::endl;
      std::exit(2);
    }
  }
};

size_t node_count(const BT::Tree& tree)
{
  size_t n = 0;
  for(const auto& s : tree.subtrees)
    n += s->nodes.size();
  return n;
}

// ---------------------------------------------------------------------------------------------
// Commands

int load(Session& s)
{
  std::string printed;
  BT::Tree tree = s.create_or_exit(blackboard(s.options), false, printed, true);
  Json j{ { "ok", true },
          { "btcpp", BT::LibraryVersionString() },
          { "main_tree", tree.subtrees.empty() ? "" : tree.subtrees.front()->tree_ID },
          { "nodes", node_count(tree) },
          { "subtrees", tree.subtrees.size() },
          { "custom_models", s.registry.registered },
          { "stand_ins", s.registry.stand_ins } };
  if(!printed.empty())
    j["output"] = printed;
  std::cout << j.dump() << std::endl;
  return 0;
}

// One JSON line per status change, in the library's order.
class Transitions : public BT::StatusChangeLogger
{
public:
  explicit Transitions(BT::TreeNode* root) : BT::StatusChangeLogger(root)
  {}
  long tick = 0;
  void callback(BT::Duration, const BT::TreeNode& n, BT::NodeStatus from,
                BT::NodeStatus to) override
  {
    Json line{ { "tick", tick },         { "uid", n.UID() },        { "path", n.fullPath() },
               { "name", n.name() },     { "id", n.registrationName() },
               { "from", BT::toStr(from) }, { "to", BT::toStr(to) } };
    std::cout << line.dump() << "\n";
  }
  void flush() override
  {
    std::cout.flush();
  }
};

int trace(Session& s)
{
  std::string printed;
  BT::Tree tree = s.create_or_exit(blackboard(s.options), false, printed, false);
  std::cerr << printed;
  int rc = 0;
  {
    Transitions log(tree.rootNode());
    log.enableTransitionToIdle(s.options.idle);
    for(long t = 0; t < s.options.ticks; t++)
    {
      log.tick = t;
      try
      {
        const auto root = tree.tickExactlyOnce();
        std::cout << Json{ { "tick", t }, { "root", BT::toStr(root) } }.dump() << "\n";
      }
      catch(const std::exception& e)
      {
        std::cout << Json{ { "tick", t }, { "error", e.what() } }.dump() << "\n";
        std::cerr << e.what() << "\n";
        rc = 3;
        break;
      }
      if(s.options.sleep_ms > 0 && t + 1 < s.options.ticks)
        tree.sleep(std::chrono::milliseconds(s.options.sleep_ms));
    }
    log.setEnabled(false);
  }
  Json types = Json::object();
  Json values = dump(*tree.rootBlackboard(), types);
  std::cout << Json{ { "blackboard", values }, { "types", types } }.dump() << std::endl;
  return rc;
}

Json summary(std::vector<double> v, int decimals)
{
  std::sort(v.begin(), v.end());
  const double scale = std::pow(10.0, decimals);
  auto r = [&](double x) { return std::round(x * scale) / scale; };
  if(v.empty())
    return Json{ { "min", 0 }, { "median", 0 }, { "max", 0 }, { "n", 0 } };
  const size_t n = v.size();
  const double median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  return Json{ { "min", r(v.front()) }, { "median", r(median) }, { "max", r(v.back()) }, { "n", n } };
}

long peak_rss_kb()
{
  std::ifstream status("/proc/self/status");
  for(std::string line; std::getline(status, line);)
    if(line.rfind("VmHWM:", 0) == 0)
      return std::atol(line.c_str() + 6);
  return -1;
}

double since(Steady::time_point t0)
{
  return std::chrono::duration<double>(Steady::now() - t0).count();
}

// Times tickOnce() on the main tree; the tree that is timed is the first one created (in a
// fresh heap, as in an application); more creations are timed afterwards.
int bench(Session& s)
{
  const Options& o = s.options;
  // <include> paths are relative to the file, so such documents are created from the file.
  const bool from_text = s.xml.find("<include") == std::string::npos;
  std::vector<double> create_ms;
  std::string printed;
  auto timed_create = [&]() {
    auto bb = blackboard(o);
    const auto t0 = Steady::now();
    BT::Tree t = s.create_or_exit(bb, from_text, printed, false);
    create_ms.push_back(since(t0) * 1e3);
    return t;
  };
  BT::Tree tree = timed_create();
  std::cerr << printed;
  long total = 0;
  double per_tick_nodes = 0;
  BT::NodeStatus root = BT::NodeStatus::IDLE;
  std::vector<double> ns_per_tick;
  try
  {
    // Node ticks per root tick, counted by a post-tick hook on every node over 3 ticks.
    uint64_t counted = 0;
    auto hook_all = [&](bool on) {
      for(auto& sub : tree.subtrees)
        for(auto& n : sub->nodes)
          if(on)
            n->setPostTickFunction([&counted](BT::TreeNode&, BT::NodeStatus) {
              counted++;
              return BT::NodeStatus::IDLE;   // IDLE: keep the node's own status
            });
          else
            n->setPostTickFunction({});
    };
    hook_all(true);
    for(int i = 0; i < 3; i++)
      root = tree.tickOnce();
    hook_all(false);
    total += 3;
    per_tick_nodes = double(counted) / 3;
    // Warm up for 0.1 s, which also tells how many ticks make one repeat.
    long warm = 0;
    const auto w0 = Steady::now();
    while(warm < 3 || since(w0) < 0.1)
    {
      tree.tickOnce();
      warm++;
    }
    total += warm;
    const long per_repeat =
        std::max(1L, long(o.seconds / double(o.repeats) / (since(w0) / double(warm))));
    for(long r = 0; r < o.repeats; r++)
    {
      const auto t0 = Steady::now();
      for(long t = 0; t < per_repeat; t++)
        tree.tickOnce();
      ns_per_tick.push_back(since(t0) * 1e9 / double(per_repeat));
      total += per_repeat;
    }
  }
  catch(const std::exception& e)
  {
    std::cerr << e.what() << "\n";
    return 3;
  }
  const auto c0 = Steady::now();
  while(create_ms.size() < 5 && since(c0) < o.seconds)
    timed_create();
  const size_t nodes = node_count(tree);
  const double per = per_tick_nodes > 0 ? per_tick_nodes : double(nodes);
  std::vector<double> ns_node, us_tick;
  Json runs = Json::array();
  for(double x : ns_per_tick)
  {
    ns_node.push_back(x / per);
    us_tick.push_back(x / 1e3);
    runs.push_back(std::round(x / per * 10) / 10);
  }
  Json types = Json::object();
  Json j{ { "btcpp", BT::LibraryVersionString() },
          { "file", o.file },
          { "nodes", nodes },
          { "node_ticks_per_tick", per_tick_nodes },
          { "root_status", BT::toStr(root) },
          { "create_ms", summary(create_ms, 3) },
          // The first creation alone: the library's code and heap as a fresh process has them.
          { "create_first_ms", std::round(create_ms.front() * 1e3) / 1e3 },
          { "repeats", o.repeats },
          { "ns_per_node_tick", summary(ns_node, 1) },
          { "ns_per_node_tick_runs", runs },
          { "us_per_tick", summary(us_tick, 3) },
          { "max_rss_kb", peak_rss_kb() },
          { "total_ticks", total },
          { "blackboard", dump(*tree.rootBlackboard(), types) } };
  std::cout << j.dump() << std::endl;
  return 0;
}

}   // namespace

// The library's own nodes as JSON: ID, kind and ports (direction, type, default), so that
// generators of test files take them from the library rather than from a copied list.
int models()
{
  BT::BehaviorTreeFactory factory;
  Json out = Json::array();
  for(const auto& id : factory.builtinNodes())
  {
    const auto& m = factory.manifests().at(id);
    Json ports = Json::array();
    for(const auto& [name, info] : m.ports)
    {
      const char* dir = info.direction() == BT::PortDirection::INPUT  ? "input" :
                        info.direction() == BT::PortDirection::OUTPUT ? "output" :
                                                                        "inout";
      Json p{ { "name", name }, { "direction", dir }, { "type", info.typeName() } };
      if(!info.defaultValueString().empty())
        p["default"] = info.defaultValueString();
      ports.push_back(p);
    }
    out.push_back(Json{ { "id", id }, { "kind", BT::toStr(m.type) }, { "ports", ports } });
  }
  std::cout << out.dump() << std::endl;
  return 0;
}

int main(int argc, char** argv)
{
  Options o = parse(argc, argv);
  if(o.command == "version")
  {
    std::cout << BT::LibraryVersionString() << std::endl;
    return 0;
  }
  if(o.command == "models")
    return models();
  try
  {
    Session s(std::move(o));
    if(s.options.command == "load")
      return load(s);
    if(s.options.command == "trace")
      return trace(s);
    return bench(s);
  }
  catch(const std::exception& e)
  {
    std::cerr << "btcpp_oracle: " << e.what() << "\n";
    return 1;
  }
}
