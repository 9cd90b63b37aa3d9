export * from './interface.js';
