// A thunk_proto that is neither a dictionary nor a string, or an empty one,
// is refused by the verifier.
// RUN: thunky-opt %s --split-input-file --verify-diagnostics

func.func @not_a_proto(%a: !thunky.buffer<8>) {
  // expected-error @+1 {{'thunky.call_thunk_proto' op thunk_proto must be a ThunkProto as a dictionary or serialized in a string}}
  thunky.call_thunk_proto %a : !thunky.buffer<8> name = "thunk" <thunk_proto = [1, 2], asm_text = "", binary = "">
  return
}

// -----

func.func @empty_dictionary(%a: !thunky.buffer<8>) {
  // expected-error @+1 {{'thunky.call_thunk_proto' op thunk_proto is empty; it must name the thunk's kind}}
  thunky.call_thunk_proto %a : !thunky.buffer<8> name = "thunk" <thunk_proto = {}, asm_text = "", binary = "">
  return
}
