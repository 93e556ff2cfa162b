// affect_bt.hpp: what a BehaviorTree.CPP 4 application registers to load and tick the XML
// `affect build --emit groot` writes, beyond its own leaves (docs/groot.md, "What a C++ user
// must register"). Header-only; needs BehaviorTree.CPP 4.x and C++17.
//
//   #include "affect_bt.hpp"
//   BT::BehaviorTreeFactory factory;
//   // your leaves: every Action/Condition of the file's <TreeNodesModel>
//   factory.registerNodeType<MoveTo>("MoveTo");
//   const std::string xml = read_file("navigator.xml");
//   affect_bt::registerExport(factory, xml);     // its enums and affect's own nodes
//   auto tree = factory.createTreeFromText(xml, blackboard_with_sensors);
//
// The export writes its enums on `<root>` as `_affect_enums="Enum::Variant=value;.."`:
// scripts name a variant without its enum (`drive != Explore`), as BehaviorTree.CPP's
// scripting enums do. That attribute is the only thing read from the text, so no XML parser
// is needed (BehaviorTree.CPP does not install the tinyxml2 it bundles).

#pragma once

#include <behaviortree_cpp/bt_factory.h>
#include <behaviortree_cpp/decorators/loop_node.h>
#include <behaviortree_cpp/scripting/script_parser.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace affect_bt
{

/// The `Variant`/value pairs of the `_affect_enums` attribute of `xml`'s `<root>` (none when
/// the file has no enums).
inline std::vector<std::pair<std::string, int>> exportedEnums(const std::string& xml)
{
  std::vector<std::pair<std::string, int>> out;
  const auto root = xml.find("<root");
  if(root == std::string::npos)
    return out;
  const auto root_end = xml.find('>', root);
  static const std::string key = " _affect_enums=\"";
  const auto at = xml.find(key, root);
  if(at == std::string::npos || at > root_end)
    return out;
  const auto begin = at + key.size();
  const auto end = xml.find('"', begin);
  if(end == std::string::npos)
    return out;
  const std::string list = xml.substr(begin, end - begin);
  size_t pos = 0;
  while(pos < list.size())
  {
    auto next = list.find(';', pos);
    if(next == std::string::npos)
      next = list.size();
    const std::string item = list.substr(pos, next - pos);
    const auto eq = item.find('=');
    const auto colons = item.rfind("::", eq);
    if(eq != std::string::npos && colons != std::string::npos)
      out.emplace_back(item.substr(colons + 2, eq - colons - 2),
                       std::atoi(item.c_str() + eq + 1));
    pos = next + 1;
  }
  return out;
}

/// Registers the scripting enums of an exported file (call it for each file, included ones
/// too, before creating the tree).
inline void registerEnums(BT::BehaviorTreeFactory& factory, const std::string& xml)
{
  for(const auto& [name, value] : exportedEnums(xml))
    factory.registerScriptingEnum(name, value);
}

// ---------------------------------------------------------------------------------------------
// Behaviour modules (seed 004; docs/affect.md, "Behaviour modules"). An agent whose modules
// run is exported as a tree whose root is an `AffectBehaviors` arbiter over `AffectModule`
// nodes; a module's children are its trees (its `run` tree and the trees among its
// `children`) and its child modules, in the source's order. Every tick the arbiter evaluates
// every module's behaviour value bottom-up, hands the execution keys out top-down by
// priority, halts (preempts) a running module left out, and ticks the modules planned in.

using Keys = std::set<std::string>;

inline Keys splitKeys(const std::string& text)
{
  Keys out;
  size_t pos = 0;
  while(pos <= text.size())
  {
    auto next = text.find(';', pos);
    if(next == std::string::npos)
      next = text.size();
    if(next > pos)
      out.insert(text.substr(pos, next - pos));
    pos = next + 1;
  }
  return out;
}

class Module;

/// What a parent does with its module children each tick: plan them by priority from a pool
/// of free keys, halt the running ones left out. `inhibition` lowers a module that is not
/// running by that share of the highest value among its running siblings.
class Planner
{
public:
  static std::vector<Module*> modulesOf(const std::vector<BT::TreeNode*>& children);
  /// Plans `modules` (all of them or none when `all`); returns the keys they took.
  static Keys plan(const std::vector<Module*>& modules, Keys& pool, double inhibition, bool all);
};

/// `AffectModule`: a behaviour module. Ports: `motivation`, `satisfaction`, `expected`
/// (BehaviorTree.CPP scripts giving Mv, S and dS), `alpha`, `beta`, `keys` (`legs;head`),
/// `policy` (`parallel`, `simultaneous` or `main`) and `main` (the main child's name).
class Module : public BT::ControlNode
{
public:
  Module(const std::string& name, const BT::NodeConfig& config) : BT::ControlNode(name, config)
  {}

  static BT::PortsList providedPorts()
  {
    return { BT::InputPort<std::string>("motivation", "0", "Mv: a script"),
             BT::InputPort<std::string>("satisfaction", "0", "S: a script"),
             BT::InputPort<std::string>("expected", "0", "dS: a script"),
             BT::InputPort<double>("alpha", 0.5, "weight of dS against S + dS"),
             BT::InputPort<double>("beta", 0.5, "weight of Mv against the releasing value"),
             BT::InputPort<std::string>("keys", "", "execution keys, `;`-separated"),
             BT::InputPort<std::string>("policy", "parallel", "parallel, simultaneous or main"),
             BT::InputPort<std::string>("main", "", "the main child, for policy main") };
  }

  /// Bv = beta * Mv + (1 - beta) * (alpha * dS + (1 - alpha) * (S + dS)), for this tick;
  /// child modules are evaluated first (bottom-up).
  double evaluate()
  {
    for(auto* m : Planner::modulesOf(children_nodes_))
      m->evaluate();
    const double mv = script("motivation"), s = script("satisfaction"), ds = script("expected");
    const double alpha = number("alpha", 0.5), beta = number("beta", 0.5);
    value_ = beta * mv + (1 - beta) * (alpha * ds + (1 - alpha) * (s + ds));
    return value_;
  }

  double value() const
  {
    return value_;
  }
  bool active() const
  {
    return status() == BT::NodeStatus::RUNNING;
  }
  Keys ownKeys() const
  {
    return splitKeys(getInput<std::string>("keys").value_or(""));
  }
  std::string policy() const
  {
    return getInput<std::string>("policy").value_or("parallel");
  }
  /// Every key of the module's subtree (the arbiter holds them all).
  Keys subtreeKeys() const
  {
    Keys k = ownKeys();
    for(auto* m : Planner::modulesOf(children_nodes_))
    {
      const Keys c = m->subtreeKeys();
      k.insert(c.begin(), c.end());
    }
    return k;
  }
  bool runsTrees() const
  {
    return Planner::modulesOf(children_nodes_).size() < children_nodes_.size();
  }
  /// The keys planning this module needs free: its own (with `simultaneous`, its module
  /// children's too).
  Keys required() const
  {
    Keys k = ownKeys();
    if(policy() == "simultaneous")
      for(auto* m : Planner::modulesOf(children_nodes_))
      {
        const Keys c = m->required();
        k.insert(c.begin(), c.end());
      }
    return k;
  }

  /// Takes the keys it requires from `pool` and plans its module children with what it holds
  /// (only the rest of the pool when it runs trees itself: those keep its keys). False when
  /// it cannot run: a module without trees runs only through its children.
  bool plan(Keys& pool, double inhibition)
  {
    const Keys need = required();
    for(const auto& k : need)
      pool.erase(k);
    Keys sub = runsTrees() ? pool : need;
    if(!runsTrees())
      sub.insert(pool.begin(), pool.end());
    const bool all = policy() == "simultaneous";
    const auto modules = Planner::modulesOf(children_nodes_);
    const Keys used = Planner::plan(modules, sub, inhibition, all);
    for(const auto& k : used)
      pool.erase(k);
    planned_ = runsTrees() || modules.empty() ||
               std::any_of(modules.begin(), modules.end(), [](Module* m) { return m->planned_; });
    if(!planned_)
      for(auto* m : modules)
        m->planned_ = false;
    return planned_;
  }

  bool planned_ = false;

  // Children finished earlier in this run stay finished until the module's result; a tree
  // child runs whenever the module does, a module child when its parent planned it in.
  BT::NodeStatus tick() override
  {
    const std::string pol = policy();
    const std::string main_child = getInput<std::string>("main").value_or("");
    for(size_t i = 0; i < children_nodes_.size(); i++)
    {
      auto* child = children_nodes_[i];
      auto* m = dynamic_cast<Module*>(child);
      if(m && !m->planned_)
      {
        if(m->active())
          haltChild(i);   // preempted: its keys went to a higher value
        continue;
      }
      const auto before = child->status();
      if(before == BT::NodeStatus::SUCCESS || before == BT::NodeStatus::FAILURE)
        continue;
      const auto st = child->executeTick();
      if(st == BT::NodeStatus::RUNNING)
        continue;
      if(pol == "simultaneous" || (pol == "main" && child->name() == main_child))
      {
        resetChildren();   // the subtree is done: the others stop
        return st;
      }
      if(pol == "main")
        haltChild(i);   // a side child finished: it may start again
    }
    if(pol == "main")
      return BT::NodeStatus::RUNNING;
    bool running = false, success = false, finished = false;
    for(auto* c : children_nodes_)
    {
      running |= c->status() == BT::NodeStatus::RUNNING;
      success |= c->status() == BT::NodeStatus::SUCCESS;
      finished |= c->status() == BT::NodeStatus::SUCCESS || c->status() == BT::NodeStatus::FAILURE;
    }
    if(running || !finished)
      return BT::NodeStatus::RUNNING;   // still active, or waiting for its keys
    resetChildren();
    return success ? BT::NodeStatus::SUCCESS : BT::NodeStatus::FAILURE;
  }

  void halt() override
  {
    planned_ = false;
    BT::ControlNode::halt();
  }

private:
  double value_ = 0.0;
  std::map<std::string, BT::ScriptFunction> scripts_;

  double number(const char* port, double fallback) const
  {
    return getInput<double>(port).value_or(fallback);
  }

  // An unset entry throws, as in a Script node: the host sets the agent's sensors.
  double script(const std::string& port)
  {
    const std::string code = getInput<std::string>(port).value_or("0");
    auto found = scripts_.find(code);
    if(found == scripts_.end())
    {
      auto parsed = BT::ParseScript(code);
      if(!parsed)
        throw BT::RuntimeError("AffectModule ", name(), ": ", port, ": ", parsed.error());
      found = scripts_.emplace(code, parsed.value()).first;
    }
    BT::Ast::Environment env{ config().blackboard, config().enums };
    const BT::Any v = found->second(env);
    try
    {
      return v.isNumber() || v.isIntegral() ? v.cast<double>() : v.cast<bool>() ? 1.0 : 0.0;
    }
    catch(const std::exception&)
    {
      return std::numeric_limits<double>::quiet_NaN();   // not a number: does not run
    }
  }
};

inline std::vector<Module*> Planner::modulesOf(const std::vector<BT::TreeNode*>& children)
{
  std::vector<Module*> out;
  for(auto* c : children)
    if(auto* m = dynamic_cast<Module*>(c))
      out.push_back(m);
  return out;
}

inline Keys Planner::plan(const std::vector<Module*>& modules, Keys& pool, double inhibition,
                          bool all)
{
  const Keys before = pool;
  double runner = 0.0;
  for(auto* m : modules)
    if(m->active())
      runner = std::max(runner, m->value());
  std::vector<std::pair<double, Module*>> order;
  for(auto* m : modules)
  {
    const double v = m->value();
    order.emplace_back(m->active() ? v : v - inhibition * runner, m);
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for(auto& [priority, m] : order)
  {
    m->planned_ = false;
    if(!(priority > 0) && !all)
      continue;
    const Keys need = m->required();
    if(std::all_of(need.begin(), need.end(), [&](const std::string& k) { return pool.count(k); }))
      m->plan(pool, inhibition);
  }
  if(all && std::any_of(modules.begin(), modules.end(), [](Module* m) { return !m->planned_; }))
  {
    for(auto* m : modules)
      m->planned_ = false;
    pool = before;
  }
  Keys used;
  for(const auto& k : before)
    if(!pool.count(k))
      used.insert(k);
  return used;
}

/// `AffectBehaviors`: the agent's arbiter over its top modules. Ports: `policy` (the top
/// policy), `inhibition` (lateral inhibition, 0..1). It holds every key, and runs as long as
/// the agent does (RUNNING).
class Behaviors : public BT::ControlNode
{
public:
  Behaviors(const std::string& name, const BT::NodeConfig& config) : BT::ControlNode(name, config)
  {}

  static BT::PortsList providedPorts()
  {
    return { BT::InputPort<std::string>("policy", "parallel", "the policy among the top modules"),
             BT::InputPort<double>("inhibition", 0.0, "lateral inhibition, 0..1") };
  }

  BT::NodeStatus tick() override
  {
    const auto modules = Planner::modulesOf(children_nodes_);
    Keys pool;
    for(auto* m : modules)
    {
      m->evaluate();
      collect(m, pool);
    }
    const bool all = getInput<std::string>("policy").value_or("parallel") == "simultaneous";
    Planner::plan(modules, pool, getInput<double>("inhibition").value_or(0.0), all);
    for(size_t i = 0; i < children_nodes_.size(); i++)
    {
      auto* m = dynamic_cast<Module*>(children_nodes_[i]);
      if(m && !m->planned_)
      {
        if(m->active())
          haltChild(i);   // preempted: a higher value took its keys
        continue;
      }
      const auto st = children_nodes_[i]->executeTick();
      if(st != BT::NodeStatus::RUNNING)
        haltChild(i);   // finished: stopped-initial, may start again
    }
    return BT::NodeStatus::RUNNING;
  }

private:
  static void collect(Module* m, Keys& pool)
  {
    const Keys all = m->subtreeKeys();
    pool.insert(all.begin(), all.end());
  }
};

// ---------------------------------------------------------------------------------------------
// The agent's state. A list that a `for` pops is the queue its Loop node reads, which a script
// cannot make: `AffectQueueString queue="{announcements}" items="a;b"` (in the `RunOnce` that
// starts the agent's state) writes it.

template <typename T>
class Queue : public BT::SyncActionNode
{
public:
  Queue(const std::string& name, const BT::NodeConfig& config) : BT::SyncActionNode(name, config)
  {}

  static BT::PortsList providedPorts()
  {
    return { BT::OutputPort<BT::SharedQueue<T>>("queue", "the list a loop pops"),
             BT::InputPort<std::string>("items", "", "its elements, `;`-separated") };
  }

  BT::NodeStatus tick() override
  {
    auto queue = std::make_shared<std::deque<T>>();
    const std::string items = getInput<std::string>("items").value_or("");
    if(!items.empty())
      for(const auto& item : BT::splitString(items, ';'))
        queue->push_back(BT::convertFromString<T>(item));
    setOutput("queue", queue);
    return BT::NodeStatus::SUCCESS;
  }
};

/// `cooldown(5s) { .. }` (affect's built-in, runtime/src/interp/families/cooldown.rs): the
/// child runs as usual; when it completes (its status passed on) a cooldown of `msec` starts,
/// during which every tick returns FAILURE without ticking the child. A halt stops a running
/// child, not the cooldown.
class Cooldown : public BT::DecoratorNode
{
public:
  Cooldown(const std::string& name, const BT::NodeConfig& config) : BT::DecoratorNode(name, config)
  {}

  static BT::PortsList providedPorts()
  {
    return { BT::InputPort<unsigned>("msec", "how long after the child completes it is not ticked") };
  }

private:
  bool cooling_ = false;
  std::chrono::steady_clock::time_point until_;

  BT::NodeStatus tick() override
  {
    if(cooling_ && std::chrono::steady_clock::now() < until_)
      return BT::NodeStatus::FAILURE;
    cooling_ = false;
    setStatus(BT::NodeStatus::RUNNING);
    const BT::NodeStatus s = child()->executeTick();
    if(s == BT::NodeStatus::SUCCESS || s == BT::NodeStatus::FAILURE)
    {
      resetChild();
      unsigned msec = 0;
      if(getInput("msec", msec) && msec > 0)
      {
        cooling_ = true;
        until_ = std::chrono::steady_clock::now() + std::chrono::milliseconds(msec);
      }
    }
    return s;
  }
};

/// Registers affect's own nodes: the arbiter, behaviour modules, queue initialisers and the
/// built-ins BehaviorTree.CPP has no node for (`Cooldown`).
inline void registerNodes(BT::BehaviorTreeFactory& factory)
{
  factory.registerNodeType<Behaviors>("AffectBehaviors");
  factory.registerNodeType<Module>("AffectModule");
  factory.registerNodeType<Queue<bool>>("AffectQueueBool");
  factory.registerNodeType<Queue<double>>("AffectQueueDouble");
  factory.registerNodeType<Queue<int>>("AffectQueueInt");
  factory.registerNodeType<Queue<std::string>>("AffectQueueString");
  factory.registerNodeType<Cooldown>("Cooldown");
}

/// Everything affect's export needs beyond the application's leaves: the file's scripting
/// enums, affect's status values and affect's own nodes.
inline void registerExport(BT::BehaviorTreeFactory& factory, const std::string& xml)
{
  registerEnums(factory, xml);
  // affect's `status` values, as its scripts name them (`outcome := success`): BT::NodeStatus's.
  // Only for affect's own files (they carry `_affect` attributes): in anyone else's, such a
  // name is a blackboard entry.
  if(xml.find(" _affect") != std::string::npos)
  {
    factory.registerScriptingEnum("idle", int(BT::NodeStatus::IDLE));
    factory.registerScriptingEnum("running", int(BT::NodeStatus::RUNNING));
    factory.registerScriptingEnum("success", int(BT::NodeStatus::SUCCESS));
    factory.registerScriptingEnum("failure", int(BT::NodeStatus::FAILURE));
    factory.registerScriptingEnum("skipped", int(BT::NodeStatus::SKIPPED));
  }
  if(factory.builders().count("AffectModule") == 0)
    registerNodes(factory);
}

}  // namespace affect_bt
