"""Reading event files back, a module a job: the code behind `summarylib.reader` and
`summarylib.decoding`, which gather its public names.

The record layer (problems, header_crc, records, chunk_walk, resync, file_scan), the meaning
of values (plugins, tensors, values), the byte-level scalar path (scalar_shapes,
scalar_matching), rows (rows, row_assembly, damage) and what users call (discovery, follow,
table, one_shot). It imports only `summarylib.format` and `summarylib.proto`: the
reader shares the files' facts with the writer, never its code. Import from the two
public modules; these may move.
"""
