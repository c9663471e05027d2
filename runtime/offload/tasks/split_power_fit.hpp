// A device's busy and idle power fitted from measured energy (docs/offload-gpu-energy.md,
// "Splitting work between the CPUs and a GPU"). Each bulk-synchronous
// iteration gives one sample: the device computed for busy_s, waited for the
// other device for idle_s, and its energy counter (NVML, RAPL) rose by
// joules = busy_watts * busy_s + idle_watts * idle_s. Least squares over the
// samples, older ones weighted down so the fit follows a changed clock or
// load. When the samples cannot tell busy from idle (the ratio busy_s/idle_s
// hardly varies, as once the split has settled, or the device never waits)
// the idle power stays where it was and only the busy power is fitted.
#pragma once

namespace joule::card_tasks {

struct FittedPower {
  double busy_watts = 0;
  double idle_watts = 0;
};

class PowerFit {
 public:
  // prior: the model's powers, kept until the first sample.
  explicit PowerFit(FittedPower prior, double forget = 0.9) : now_(prior), forget_(forget) {}

  // Adds one iteration's sample (ignored when busy_s <= 0 or joules < 0).
  void add(double busy_s, double idle_s, double joules);
  // Starts over from `prior` (e.g. after a clock change).
  void reset(FittedPower prior);
  FittedPower power() const { return now_; }
  int samples() const { return samples_; }

 private:
  FittedPower now_;
  double forget_;
  int samples_ = 0;
  // The normal equations' sums, each sample weighted forget^age.
  double bb_ = 0, bi_ = 0, ii_ = 0, be_ = 0, ie_ = 0;
};

}  // namespace joule::card_tasks
