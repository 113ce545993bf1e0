#version 150
// wec client, level layer plane (vertex stage): hands layer.frag the world-space
// position, from which it draws grid lines at the square borders.

uniform mat4 p3d_ModelViewProjectionMatrix;
uniform mat4 p3d_ModelMatrix;

in vec4 p3d_Vertex;

out vec3 v_world_position;

void main() {
    gl_Position = p3d_ModelViewProjectionMatrix * p3d_Vertex;
    v_world_position = vec3(p3d_ModelMatrix * p3d_Vertex);
}
