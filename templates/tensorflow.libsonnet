// TensorFlow parameter-server training (OpenPAI style): roles `ps` and `worker`, each
// instance with a labelled `grpc` port; TF_CONFIG is built from OpenPAI's env variables.
local job = import 'job.libsonnet';

// Prints TF_CONFIG from PAI_HOST_IP_<role>_<i> and PAI_<role>_<i>_grpc_PORT. Those peer
// variables exist for jobs of at most 128 instances, plenty for PS training.
local tfConfig =
  "python3 -c \"import json,os;e=os.environ;c=lambda r:[e['PAI_HOST_IP_%s_%d'%(r,i)]+':'+e['PAI_%s_%d_grpc_PORT'%(r,i)] for i in range(int(e['PAI_TASK_ROLE_TASK_COUNT_%s'%r]))];print(json.dumps({'cluster':{'ps':c('ps'),'worker':c('worker')},'task':{'type':e['PAI_CURRENT_TASK_ROLE_NAME'],'index':int(e['PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX'])}}))\"";

{
  // The TF_CONFIG one-liner, for custom role layouts.
  tfConfigCommand:: tfConfig,

  // `ps` parameter servers (CPU only) and `workers` workers with `gpusPerWorker` GPUs,
  // each running `script` with `args` (shell words) and TF_CONFIG set. `hosts` must hold
  // ps + workers hosts: ps first. Fault tolerance is async: a failed worker restarts alone.
  psWorker(name, hosts, ps, workers, gpusPerWorker, script, args=[], fabric=null, env={})::
    local command = job.words(['export TF_CONFIG="$(' + tfConfig + ')"', '&&', 'exec', 'python3', script] + args);
    local role(instances, gpu) = job.prune({
      instances: instances,
      nprocPerNode: 1,
      resources: { gpu: gpu },
      command: command,
      env: env,
      ports: { grpc: 1 },
    });
    job.new(name, 'tensorflow', hosts, {
      ps: role(ps, 0),
      worker: role(workers, gpusPerWorker),
    }, fabric) + {
      masterRole: 'ps',
      faultTolerance: { mode: 'async' },
    },
}
