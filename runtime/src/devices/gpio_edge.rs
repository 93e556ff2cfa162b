//! Edge events from a GPIO input (`gpio_edge(pin: 17, edge: rising)`): the sound sensor's
//! threshold comparator of seed 003, whose driver raised a real-time signal on each edge.
//!
//! This implementation polls the pin once per tick and compares with the previous level, so
//! it sees a level change that lasts until the next tick; a pulse shorter than a tick needs
//! an interrupt-driven source behind the same [`EdgeSource`] trait (rppal's
//! `set_async_interrupt`). The first poll only learns the level: a line that is already high
//! at start-up is not an edge.

use super::{DeviceError, Edge, EdgeKind, EdgeSource};
use embedded_hal::digital::{Error as _, InputPin};

pub struct GpioEdge<P> {
    pin: P,
    edge: EdgeKind,
    last: Option<bool>,
    name: String,
}

impl<P: InputPin> GpioEdge<P> {
    pub fn new(pin: P, number: u32, edge: EdgeKind) -> GpioEdge<P> {
        GpioEdge {
            pin,
            edge,
            last: None,
            name: format!("gpio{number}"),
        }
    }
}

impl<P: InputPin> EdgeSource for GpioEdge<P> {
    fn poll(&mut self) -> Result<Option<Edge>, DeviceError> {
        let level = self
            .pin
            .is_high()
            .map_err(|e| DeviceError::bus(&self.name, e.kind()))?;
        let previous = self.last.replace(level);
        let edge = match (previous, level) {
            (Some(false), true) => Some(Edge::Rising),
            (Some(true), false) => Some(Edge::Falling),
            _ => None,
        };
        Ok(edge.filter(|e| self.edge.accepts(*e)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::devices::mock::FakePin;

    fn polls(source: &mut impl EdgeSource, n: usize) -> Vec<Option<Edge>> {
        (0..n).map(|_| source.poll().unwrap()).collect()
    }

    #[test]
    fn rising_edges_only() {
        let pin = FakePin::new(false);
        pin.script(&[false, true, true, false, true]);
        let mut e = GpioEdge::new(pin.clone(), 17, EdgeKind::Rising);
        assert_eq!(
            polls(&mut e, 6),
            vec![
                None,
                Some(Edge::Rising),
                None,
                None,
                Some(Edge::Rising),
                None
            ]
        );
        assert_eq!(pin.reads(), 6);
    }

    #[test]
    fn falling_and_both() {
        let pin = FakePin::new(true);
        pin.script(&[true, false, true]);
        let mut e = GpioEdge::new(pin, 4, EdgeKind::Falling);
        assert_eq!(polls(&mut e, 3), vec![None, Some(Edge::Falling), None]);
        let pin = FakePin::new(false);
        pin.script(&[false, true, false]);
        let mut e = GpioEdge::new(pin, 4, EdgeKind::Both);
        assert_eq!(
            polls(&mut e, 3),
            vec![None, Some(Edge::Rising), Some(Edge::Falling)]
        );
    }

    #[test]
    fn high_at_start_is_not_an_edge() {
        let pin = FakePin::new(true);
        let mut e = GpioEdge::new(pin, 17, EdgeKind::Rising);
        assert_eq!(polls(&mut e, 3), vec![None, None, None]);
    }

    #[test]
    fn a_failed_read_is_an_error_and_polling_goes_on() {
        let pin = FakePin::new(false);
        pin.script(&[false]);
        pin.fail_next();
        pin.script(&[true]);
        let mut e = GpioEdge::new(pin, 17, EdgeKind::Rising);
        assert_eq!(e.poll(), Ok(None));
        assert!(matches!(e.poll(), Err(DeviceError::Bus { ref device, .. }) if device == "gpio17"));
        assert_eq!(e.poll(), Ok(Some(Edge::Rising)));
    }
}
