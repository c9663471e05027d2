// OpenMP affinity in libjoule-omp: the process's CPUs before any library
// bound a thread (affinity_origin.cpp), the places and binding joule's
// workers started with (places.cpp), and the affinity display
// (affinity_format.cpp). docs/openmp.md, "Places and binding".
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "joule/team.h"

namespace joule::omp {

// The CPUs (OS numbers, ascending) the process had before any library bound
// a thread: libgomp, still loaded by a program linked with it, binds the
// main thread to its first place from its constructor, before ours.
std::vector<int> original_cpus();
// Gives the main thread back its original mask when libgomp bound it and it
// still has the mask libgomp set (libgomp runs nothing here, so its binding
// only takes CPUs from joule's workers).
void undo_libgomp_binding();

// The affinity ICVs, filled once when joule starts (icv.cpp).
struct AffinityIcv {
  int num_places = 0;
  int bind_levels = 1;
  int bind[8] = {};   // bind-var per nesting level, the last one repeating
  int num_procs = 1;  // CPUs of the original mask (omp_get_num_procs)
  bool display = false;
};
AffinityIcv& affinity();
// Builds the places within the main thread's mask (after
// undo_libgomp_binding) and fills the ICVs; the result names the workers and
// CPUs to start joule with. Exits with the message when that fails.
joule_omp_affinity_t load_affinity();
// The calling thread's place (-1: not bound to one) and partition.
int current_place(int* part_first, int* part_len);
// bind-var at nesting level `level`.
int bind_at(int level);

// OMP_AFFINITY_FORMAT's text, and the display at a region's start.
void set_affinity_format(std::string format);
std::string affinity_format();
// The line `format` (the ICV when null or empty) gives for the calling
// thread, as omp_capture_affinity writes it; a bad field stops the program
// with a message naming `entry`.
std::string format_affinity(const char* format, const char* entry);
// OMP_DISPLAY_AFFINITY, at a region's start (its master, before the members
// start): whether every member of a team of n prints its line.
bool team_shows_affinity(int n);
// As a member starts a region: prints the calling thread's line when its
// team shows them all, or when its CPUs changed since it last printed.
void display_affinity_on_entry(bool team_shows);

}  // namespace joule::omp
