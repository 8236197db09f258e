// The shape every pai template returns: a complete `apiVersion: pai/v1` job spec.
// Framework templates (pytorch, mpi, tensorflow, deepspeed) build their roles and hand them
// to job.new. Everything else (image, runtime, mounts, output, spares, parameters,
// faultTolerance, sanityCheck) is added by the caller with `+ { ... }`.
{
  // A job spec object; `fabric` is a preset from fabric.libsonnet, or null for none.
  new(name, framework, hosts, roles, fabric=null)::
    {
      apiVersion: 'pai/v1',
      kind: 'Job',
      name: name,
      framework: framework,
      hosts: hosts,
      roles: roles,
    }
    + (if fabric != null then { fabric: fabric } else {}),

  // Joins shell words with spaces. Words are not quoted, so $VARS and ${parameters.x} in
  // them work; quote a word yourself (std.escapeStringBash) when it must stay literal.
  words(list):: std.join(' ', list),

  // `fields` without the entries whose value is null or empty, so pai-compile's defaults apply.
  prune(fields):: { [k]: fields[k] for k in std.objectFields(fields) if fields[k] != null && fields[k] != {} && fields[k] != [] },
}
