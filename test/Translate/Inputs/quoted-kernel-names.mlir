// Two kernels over 256 bytes of cubin, one named with a space (its resource
// key is printed quoted); test/Translate/resources-text-trailer.test.
module {
  thunky.kernel_binary @"k 1" cubin = "\7FELFabababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababab"
  thunky.kernel_binary @k2 cubin = "\7FELFcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd"
  func.func @main(%a: !thunky.buffer<16> {thunky.role = "parameter 0"}, %b: !thunky.buffer<16> {thunky.role = "output {}"}) {
    thunky.launch "k 1"(%a, %b : !thunky.buffer<16>, !thunky.buffer<16>) <grid = [1, 1, 1], block = [32, 1, 1], written = [false, true], binary = @"k 1">
    thunky.launch "k2"(%a, %b : !thunky.buffer<16>, !thunky.buffer<16>) <grid = [1, 1, 1], block = [32, 1, 1], written = [false, true], binary = @k2>
    return
  }
}
