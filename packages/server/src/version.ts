/** What /version answers (Kubernetes' version.Info). */
export interface VersionInfo {
  major: string;
  minor: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

/**
 * Defaults: the Kubernetes API level plat follows (1.32, so kubectl's version-skew check is
 * quiet) with plat's own release in gitVersion; apps override with their build information.
 */
export function defaultVersionInfo(overrides: Partial<VersionInfo> = {}): VersionInfo {
  return {
    major: '1',
    minor: '32',
    gitVersion: 'v1.32.0+plat.0.1.0',
    gitCommit: 'unknown',
    gitTreeState: 'clean',
    buildDate: '1970-01-01T00:00:00Z',
    goVersion: `node${process.versions.node}`,
    compiler: 'tsc',
    platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
    ...overrides,
  };
}
