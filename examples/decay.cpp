// A small C++ example for fpforge: a class template in a namespace whose method takes
// an explicit Euler step, rejecting a bad step size with std::invalid_argument.
#include <stdexcept>

namespace ode {

template <typename T> struct Euler {
  T rate;
  T step(T y, T h) const {
    if (h <= 0)
      throw std::invalid_argument("bad step");
    return y + h * rate * y;
  }
};

// One step of y' = -y / 2; a step that overshoots below zero stops at zero.
double decay(double y, double h) {
  Euler<double> e{-0.5};
  double next = e.step(y, h);
  if (next < 0)
    return 0;
  return next;
}

} // namespace ode
