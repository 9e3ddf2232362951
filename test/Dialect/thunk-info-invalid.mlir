// A malformed #thunky.info is refused where it is written.
// RUN: thunky-opt %s -split-input-file -verify-diagnostics

func.func @no_id(%a: !thunky.buffer<16>) {
  // expected-error @below {{expected 'id'}}
  thunky.memzero %a {thunky.info = #thunky.info<"name">} : <16>
  return
}

// -----

func.func @empty_annotation(%a: !thunky.buffer<16>) {
  // expected-error @below {{a thunk's annotation is absent or not empty}}
  thunky.memzero %a {thunky.info = #thunky.info<id = 1, "">} : <16>
  return
}

// -----

func.func @region_before_annotation(%a: !thunky.buffer<16>) {
  // expected-error @below {{expected '>'}}
  thunky.memzero %a {thunky.info = #thunky.info<id = 1, concurrent_region = 2, "name">} : <16>
  return
}
