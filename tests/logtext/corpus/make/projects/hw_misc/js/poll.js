function waitForDeploy(id) {
  return new Promise((resolve, reject) => {
    setTimeout(() => reject('deploy ' + id + ' timed out'), 50);
  });
}

console.log('waiting for deploy 8812');
waitForDeploy(8812).then(() => console.log('deployed'));
