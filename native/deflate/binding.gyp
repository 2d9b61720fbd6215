{
  "targets": [
    {
      "target_name": "geoweave_deflate",
      "sources": ["deflate.c", "huffman.c"],
      "include_dirs": ["<!(node find-libdeflate.js include)"],
      "cflags": ["-O2", "-fvisibility=hidden"],
      "conditions": [
        ["OS=='linux'", {
          "libraries": ["<!(node find-libdeflate.js lib)", "-Wl,--exclude-libs,ALL", "-Wl,-Bsymbolic"]
        }],
        ["OS=='mac'", {
          "libraries": ["<!(node find-libdeflate.js lib)"]
        }],
        ["OS=='win'", {
          "libraries": ["<!(node find-libdeflate.js lib)"]
        }]
      ]
    }
  ]
}
