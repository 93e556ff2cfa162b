//! What is on a world's floor: scalar fields, obstacles, guests, landmarks, mines and the
//! agents it spawns, with their starting values.
use super::lower::{info, Floor, Lowering, FIELD_RULES};
use super::values::{bare_name, literal, quantity, Measure, Reader};
use super::*;
use crate::diagnostic::Diagnostic;
use crate::syntax::ast::{Expr, ExprKind, Setting, SettingEntry};

impl Lowering<'_> {
    pub(super) fn read_field(&mut self, s: &Setting) {
        let taken: Vec<String> = self.spec.fields.iter().map(|f| f.name.clone()).collect();
        let name = self.fresh_name(&s.args[0], "a field name", &taken);
        let base = s.assign.as_ref().and_then(|e| self.reader().plain(e));
        let mut field = FieldSpec {
            name: name.clone().unwrap_or_default(),
            base: base.unwrap_or(0.0),
            rules: Vec::new(),
            drift: None,
        };
        for entry in s.block.iter().flat_map(|b| &b.entries) {
            match entry {
                SettingEntry::Setting(rule) => self.read_field_rule(rule, &mut field),
                SettingEntry::Error(_) => {}
                other => self.diags.push(
                    Diagnostic::error("E0501", "this is not a field rule", other.span())
                        .with_label("a field block takes `near`, `at` and `drift`"),
                ),
            }
        }
        if name.is_some() && base.is_some() {
            self.spec.fields.push(field);
        }
    }

    pub(super) fn read_field_rule(&mut self, s: &Setting, field: &mut FieldSpec) {
        let Some(info) = info(FIELD_RULES, &s.key.name) else {
            self.unknown(&s.key, FIELD_RULES, "a field block");
            return;
        };
        if !self.fits(s, info.fits) || !self.check_form(s, info) {
            return;
        }
        match info.key {
            "drift" => {
                if field.drift.is_some() {
                    self.diags.push(
                        Diagnostic::error("E0507", "the field already drifts", s.key.span)
                            .with_label("given again here"),
                    );
                    return;
                }
                let every = self.require_pair(s, "every", info.example);
                let amount = self.reader().plain(&s.args[0]);
                let every = every.and_then(|e| self.positive_time(e));
                if let (Some(amount), Some(every_ms)) = (amount, every) {
                    if amount < 0.0 {
                        self.reader().out_of_range(
                            s.args[0].span,
                            "a drift must not be negative",
                            "must be zero or more",
                        );
                        return;
                    }
                    field.drift = Some(Drift { amount, every_ms });
                }
            }
            "at" => {
                let value = s.value.as_ref().and_then(|e| self.reader().plain(e));
                let cell = self.grid_cell(&s.args[0]);
                if let (Some(cell), Some(value)) = (cell, value) {
                    field.rules.push(FieldRule::AtCell { cell, value });
                }
            }
            _ => {
                let radius = self.require_pair(s, "radius", info.example);
                let value = s.value.as_ref().and_then(|e| self.reader().plain(e));
                match self.floor {
                    Some((Floor::Grid, _)) => {
                        let centre = self.grid_cell(&s.args[0]);
                        let radius = radius.and_then(|e| self.grid_radius(e));
                        if let (Some(centre), Some(radius), Some(value)) = (centre, radius, value) {
                            field.rules.push(FieldRule::NearCell {
                                centre,
                                radius,
                                value,
                            });
                        }
                    }
                    Some((Floor::Area, _)) => {
                        let centre = self.area_point(&s.args[0]);
                        let radius = radius.and_then(|e| self.reader().size(e, false));
                        if let (Some(centre), Some(radius), Some(value)) = (centre, radius, value) {
                            field.rules.push(FieldRule::NearPoint {
                                centre,
                                radius,
                                value,
                            });
                        }
                    }
                    None => {}
                }
            }
        }
    }

    pub(super) fn read_obstacle(&mut self, s: &Setting) {
        let example = "obstacle food_table at (25ft, 49ft) size 4ft x 2ft;";
        let taken = self.thing_names();
        let name = self.fresh_name(&s.args[0], "an obstacle name", &taken);
        let at = self
            .require_pair(s, "at", example)
            .and_then(|e| self.area_point(e));
        let shape = match (Self::pair(s, "size"), Self::pair(s, "radius")) {
            (Some(w), None) => {
                let mut r = self.reader();
                let width = r.size(w, true);
                let height = match Self::pair(s, "x") {
                    Some(h) => r.size(h, true),
                    None => width,
                };
                at.zip(width.zip(height))
                    .map(|(centre, (width, height))| Shape::Rect {
                        centre,
                        width,
                        height,
                    })
            }
            (None, Some(rad)) => {
                if let Some((x, _)) = s.pairs.iter().find(|(k, _)| k.name == "x") {
                    self.diags.push(
                        Diagnostic::error("E0502", "a round obstacle takes no `x`", x.span)
                            .with_label("only with `size`"),
                    );
                    return;
                }
                let radius = self.reader().size(rad, true);
                at.zip(radius)
                    .map(|(centre, radius)| Shape::Circle { centre, radius })
            }
            _ => {
                self.diags.push(
                    Diagnostic::error(
                        "E0502",
                        "an obstacle needs either `size W x H` or `radius R`",
                        s.span,
                    )
                    .with_label("give its size or its radius")
                    .with_help(format!("write it like `{example}`")),
                );
                return;
            }
        };
        if let (Some(name), Some(shape), WorldKind::Area(a)) = (name, shape, &mut self.spec.kind) {
            a.obstacles.push(Obstacle { name, shape });
        }
    }

    pub(super) fn read_guests(&mut self, s: &Setting) {
        let example = info(SETTINGS, "guests").map_or("", |i| i.example);
        let speed_e = self.require_pair(s, "speed", example);
        let walk_e = self.require_pair(s, "duration", example);
        let mut r = self.reader();
        let count = r.count(&s.args[0], 0, 100_000);
        let unit_m = r.unit_m;
        // Speeds are bare numbers: world units per second.
        let mut speed_of = |r: &mut Reader, e: &Expr| {
            let v = r.plain(e)?;
            Some(v * unit_m)
        };
        let secs = |r: &mut Reader, e: &Expr| r.duration_ms(e).map(|ms| ms / 1000.0);
        let speed = speed_e.and_then(|e| distribution(&mut r, e, &mut speed_of));
        let walk = walk_e.and_then(|e| distribution(&mut r, e, &mut { secs }));
        let pause = match Self::pair(s, "pause") {
            Some(e) => distribution(&mut r, e, &mut { secs }),
            None => Some(Triangular::constant(0.0)),
        };
        let (Some(count), Some(speed), Some(walk), Some(pause)) = (count, speed, walk, pause)
        else {
            return;
        };
        let Some(area) = self.spec.area() else { return };
        // Random placement needs room: beyond about 40 % of the floor it may never finish.
        let footprint = count as f64 * area.body_m * area.body_m;
        if footprint > 0.4 * area.width_m * area.height_m {
            self.reader().out_of_range(
                s.args[0].span,
                format!("{count} guests do not fit in the area"),
                "their bodies would cover more than 40 % of the floor",
            );
            return;
        }
        if walk.max <= 0.0 && count > 0 {
            self.reader().out_of_range(
                walk_e.map_or(s.span, |e| e.span),
                "guests must walk for some time",
                "the longest walk must be longer than zero",
            );
            return;
        }
        if let WorldKind::Area(a) = &mut self.spec.kind {
            a.guests = Some(GuestSpec {
                count: count as u32,
                speed,
                walk,
                pause,
            });
        }
    }

    pub(super) fn read_landmark(&mut self, s: &Setting) {
        let kind = match s.key.name.as_str() {
            "person" => LandmarkKind::Person,
            "teammate" => LandmarkKind::Teammate,
            _ => LandmarkKind::Place,
        };
        let example = info(SETTINGS, &s.key.name).map_or("", |i| i.example);
        let taken = self.thing_names();
        let name = self.fresh_name(&s.args[0], "a name", &taken);
        let at = self
            .require_pair(s, "at", example)
            .and_then(|e| self.area_point(e));
        let familiarity = match Self::pair(s, "familiarity") {
            Some(e) => self.reader().plain_in(e, 0.0, 100.0).map(Some),
            None => Some(None),
        };
        let toward = match Self::pair(s, "toward") {
            Some(e) => self.area_point(e).map(Some),
            None => Some(None),
        };
        if let (Some(name), Some(position), Some(familiarity), Some(toward)) =
            (name, at, familiarity, toward)
        {
            self.spec.landmarks.push(Landmark {
                kind,
                name,
                position,
                familiarity,
                toward,
            });
        }
    }

    pub(super) fn read_mines(&mut self, s: &Setting) {
        for e in &s.args {
            if let Some(position) = self.area_point(e) {
                self.mine_count += 1;
                self.spec.landmarks.push(Landmark {
                    kind: LandmarkKind::Mine,
                    name: format!("mine{}", self.mine_count),
                    position,
                    familiarity: None,
                    toward: None,
                });
            }
        }
    }

    pub(super) fn read_spawn(&mut self, s: &Setting) {
        let agent = self.reader().name(&s.args[0], "an agent name");
        let count = match Self::pair(s, "count") {
            Some(e) => self.reader().count(e, 1, 100_000),
            None => Some(1),
        };
        let at = self
            .require_pair(s, "at", "spawn Navigator at P;")
            .and_then(|e| self.spawn_place(e));
        let heading = match Self::pair(s, "heading") {
            Some(e) => self.reader().heading_deg(e).map(Some),
            None => Some(None),
        };
        let mut init = Vec::new();
        let mut init_ok = true;
        for (k, v) in &s.pairs {
            if ["at", "count", "heading"].contains(&k.name.as_str()) {
                continue;
            }
            match self.init_value(v) {
                Some(value) => init.push((
                    NameRef {
                        name: k.name.clone(),
                        span: k.span,
                    },
                    value,
                )),
                None => init_ok = false,
            }
        }
        let (Some(agent), Some(count), Some(at), Some(heading_deg), true) =
            (agent, count, at, heading, init_ok)
        else {
            return;
        };
        if count > 1 && at != SpawnAt::Random {
            let span = Self::pair(s, "count").map_or(s.span, |e| e.span);
            self.diags.push(
                Diagnostic::error(
                    "E0509",
                    format!("{count} agents cannot start on one spot"),
                    span,
                )
                .with_label("several agents need `at random`"),
            );
            return;
        }
        if let SpawnAt::Point(p) = at {
            if let Some(o) = self
                .spec
                .area()
                .and_then(|a| a.obstacles.iter().find(|o| inside(o.shape, p)))
            {
                let name = o.name.clone();
                self.diags.push(
                    Diagnostic::error(
                        "E0509",
                        format!("`{}` would start inside obstacle `{name}`", agent.name),
                        s.span,
                    )
                    .with_label("this spot is taken by an obstacle"),
                );
                return;
            }
        }
        if let SpawnAt::Cell(cell) = at {
            if let Some(other) = self
                .spec
                .spawns
                .iter()
                .find(|o| o.at == SpawnAt::Cell(cell))
            {
                let (name, first) = (other.agent.name.clone(), other.span);
                self.diags.push(
                    Diagnostic::error(
                        "E0509",
                        format!(
                            "`{}` would start on the cell `{name}` starts on",
                            agent.name
                        ),
                        s.span,
                    )
                    .with_label("this cell is taken")
                    .with_secondary(first, "taken here"),
                );
                return;
            }
        }
        self.spec.spawns.push(SpawnSpec {
            agent,
            count: count as u32,
            at,
            heading_deg,
            init,
            span: s.span,
        });
    }

    pub(super) fn spawn_place(&mut self, e: &Expr) -> Option<SpawnAt> {
        if bare_name(e) == Some("random") {
            return Some(SpawnAt::Random);
        }
        match self.floor {
            Some((Floor::Grid, _)) => self.grid_cell(e).map(SpawnAt::Cell),
            Some((Floor::Area, _)) => self.area_point(e).map(SpawnAt::Point),
            None => None,
        }
    }

    pub(super) fn init_value(&mut self, e: &Expr) -> Option<InitValue> {
        if let Some((v, unit)) = literal(e) {
            // In the runtime's unit now; the checker holds the measure against the variable's
            // type (`check_world_names`): `wait 10s` for a duration is 10,000 ms.
            return Some(InitValue::Num {
                value: unit.map_or(v, |u| quantity(v, u)),
                measure: unit.map(Measure::of),
                span: e.span,
            });
        }
        match &e.kind {
            ExprKind::Bool(b) => Some(InitValue::Bool(*b)),
            ExprKind::Str(s) => Some(InitValue::Str(s.clone())),
            ExprKind::Tuple(_) => self.reader().point(e).map(InitValue::Point),
            _ => match bare_name(e) {
                Some(n) => Some(InitValue::Name(n.to_string())),
                None => {
                    self.diags.push(
                        Diagnostic::error("E0502", "an initial value must be a literal", e.span)
                            .with_label(
                                "write a number, `true`/`false`, a string, a point or a name",
                            ),
                    );
                    None
                }
            },
        }
    }
}

/// A point inside an obstacle's shape.
fn inside(shape: Shape, p: Point) -> bool {
    match shape {
        Shape::Rect {
            centre,
            width,
            height,
        } => (p.x - centre.x).abs() < width / 2.0 && (p.y - centre.y).abs() < height / 2.0,
        Shape::Circle { centre, radius } => p.distance(centre) < radius,
    }
}

/// A triangular distribution, or a single value meaning a constant.
fn distribution(
    r: &mut Reader,
    e: &Expr,
    read: &mut dyn FnMut(&mut Reader, &Expr) -> Option<f64>,
) -> Option<Triangular> {
    if literal(e).is_some() {
        let v = read(r, e)?;
        if v < 0.0 {
            r.out_of_range(
                e.span,
                "the value must not be negative",
                "must be zero or more",
            );
            return None;
        }
        return Some(Triangular::constant(v));
    }
    r.triangular(e, read)
}
