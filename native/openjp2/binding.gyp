{
  "targets": [
    {
      "target_name": "geoweave_openjp2",
      "sources": ["openjp2.c"],
      "include_dirs": ["<!(node find-openjp2.js include)"],
      "cflags": ["-O2", "-fvisibility=hidden"],
      "libraries": ["<!(node find-openjp2.js lib)"]
    }
  ]
}
