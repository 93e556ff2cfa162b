//! The wall-clock run's observers (the stop request, the timing report, the watchdog and
//! systemd) are the runtime's (`affect_runtime::robot`), so that a user's own binary runs a
//! robot as `affect run --hardware` does; here they join the command line's fan-out.

use super::RunObserver;
use affect_runtime::robot::RobotObservers;

impl RunObserver for RobotObservers {
    fn finish(&mut self, _completed: bool) -> Result<(), String> {
        RobotObservers::finish(self)
    }
}
